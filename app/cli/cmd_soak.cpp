// kvw soak: random valid and invalid commands against a session, checked after each one.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "cli_args.h"
#include "commands.h"
#include "core/session/soak.h"

namespace kvw::cli {

namespace {

void print(const char* label, const SoakReport& r) {
    const SoakCounts& c = r.counts;
    std::printf("%s: %lld ticks in %.1f s (%.0f ticks/s), %lld sessions; lists: %lld applied, "
                "%lld rejected; %lld rebuilds, %lld drift checks, %lld layout switches, "
                "%lld RoPE policy changes, %lld new prompts; RSS %.1f MiB after the first "
                "session, %.1f MiB now, peak %.1f MiB\n",
                label, static_cast<long long>(c.ticks), r.seconds,
                r.seconds > 0 ? double(c.ticks) / r.seconds : 0.0,
                static_cast<long long>(c.sessions), static_cast<long long>(c.valid_lists),
                static_cast<long long>(c.rejected_lists), static_cast<long long>(c.rebuilds),
                static_cast<long long>(c.drift_checks),
                static_cast<long long>(c.layout_switches),
                static_cast<long long>(c.policy_changes), static_cast<long long>(c.restarts),
                double(r.rss_after_warmup) / (1 << 20), double(r.rss_last) / (1 << 20),
                double(r.peak_rss) / (1 << 20));
    std::fflush(stdout);
}

}  // namespace

int cmd_soak(const Words& words) {
    const CliArgs args(words, {"model", "ticks", "seed", "capacity", "backend", "segment"});
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    SoakOptions options;
    options.model = args.get("model", options.model);
    options.backend = args.get("backend", options.backend);
    options.ticks = args.get_count("ticks", options.ticks, INT64_MAX);
    options.seed = uint64_t(args.get_count("seed", int64_t(options.seed), INT64_MAX));
    options.capacity = args.get_count("capacity", options.capacity, INT64_MAX);
    options.segment_ticks = args.get_count("segment", 0, INT64_MAX);
    // Every rejected list and every rebuild would be logged: the report says how many.
    spdlog::set_level(spdlog::level::err);
    const SoakReport report =
        run_soak(options, [](const SoakReport& r) { print("soak", r); });
    if (!report.ok()) {
        std::fprintf(stderr, "kvw soak: FAILED after %lld ticks: %s\n",
                     static_cast<long long>(report.failed_tick), report.failure.c_str());
        return 1;
    }
    print("soak passed", report);
    return 0;
}

}  // namespace kvw::cli
