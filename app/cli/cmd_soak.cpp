// kvw soak: random valid and invalid commands against a session, checked after each one.
#include <cstdio>
#include <string>

#include <spdlog/spdlog.h>

#include "cli_args.h"
#include "commands.h"
#include "common_options.h"
#include "core/session/soak.h"

namespace kvw::cli {

namespace {

void print(const char* label, const SoakReport& r) {
    const SoakCounts& c = r.counts;
    std::printf(
        "%s: %lld ticks in %.1f s (%.0f ticks/s), %lld sessions; lists: %lld applied, "
        "%lld rejected; %lld rebuilds, %lld drift checks, %lld layout switches, "
        "%lld policy changes, %lld new prompts; systems sessions %lld: %lld K/V type changes, "
        "%lld backend switches, %lld wLOD changes, %lld collapses / expands, "
        "%lld undo / redo / snapshot / restore, %lld forks, %lld refused with nothing changed; "
        "%lld sessions replayed their own trace equal; "
        "RSS %.1f MiB after the first session, %.1f MiB now, peak %.1f MiB; checkpoints at "
        "most %.2f MiB\n",
        label, static_cast<long long>(c.ticks), r.seconds,
        r.seconds > 0 ? double(c.ticks) / r.seconds : 0.0, static_cast<long long>(c.sessions),
        static_cast<long long>(c.valid_lists), static_cast<long long>(c.rejected_lists),
        static_cast<long long>(c.rebuilds), static_cast<long long>(c.drift_checks),
        static_cast<long long>(c.layout_switches), static_cast<long long>(c.policy_changes),
        static_cast<long long>(c.restarts), static_cast<long long>(c.systems_sessions),
        static_cast<long long>(c.kv_type_changes), static_cast<long long>(c.backend_switches),
        static_cast<long long>(c.wlod_changes), static_cast<long long>(c.collapses),
        static_cast<long long>(c.history), static_cast<long long>(c.forks),
        static_cast<long long>(c.refusals), static_cast<long long>(c.replays),
        double(r.rss_after_warmup) / (1 << 20), double(r.rss_last) / (1 << 20),
        double(r.peak_rss) / (1 << 20), double(r.peak_checkpoint_bytes) / (1 << 20));
    std::fflush(stdout);
}

int run_soak_command(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    SoakOptions options;
    options.model = args.get("model");
    options.backend = args.get("backend");
    options.ticks = args.get_count("ticks", INT64_MAX);
    options.seed = uint64_t(args.get_count("seed", INT64_MAX));
    options.capacity = args.get_count("capacity", INT64_MAX);
    options.segment_ticks = args.get_count("segment", INT64_MAX);
    options.systems = !args.has("edits-only");
    options.gate = args.get("gate");
    options.gist_net = args.get("gist-net");
    options.failure_trace = args.get("failure-trace");
    // Every rejected list and every rebuild would be logged: the report says how many. A
    // --log-level given on the command line still wins.
    if (!args.has("log-level")) spdlog::set_level(spdlog::level::err);
    const SoakReport report = run_soak(options, [](const SoakReport& r) { print("soak", r); });
    if (!report.ok()) {
        std::fprintf(stderr, "kvw soak: FAILED after %lld ticks: %s\n",
                     static_cast<long long>(report.failed_tick), report.failure.c_str());
        return 1;
    }
    print("soak passed", report);
    return 0;
}

}  // namespace

CommandSpec soak_command() {
    // The fallbacks are SoakOptions' own defaults, so that the usage shows what runs; the backend
    // is "auto", as for every kvw command (SoakOptions keeps the library's reference).
    const SoakOptions defaults;
    OptionSpec model = model_option();
    model.fallback = defaults.model;
    return {
        "soak",
        "",
        "random edits, rebuilds and switches, and sessions of every system, each checked; exit 1 "
        "when an invariant breaks",
        {
            model,
            {"ticks", "N", std::to_string(defaults.ticks), "ticks over all sessions"},
            {"seed", "S", std::to_string(defaults.seed), "seed of the random commands"},
            {"capacity", "ROWS", std::to_string(defaults.capacity),
             "rows per layer, at least " + std::to_string(Soak::kMinCapacity) +
                 "; small, so that edits and appends meet the limit"},
            {"segment", "TICKS", std::to_string(defaults.segment_ticks),
             "ticks per session, memory is compared between sessions; 0: ticks / 5, "
             "within [50, 2000]"},
            {"gate", "FILE", "",
             "a SmartKV gate sidecar for the model: systems sessions then run smartkv too"},
            {"gist-net", "FILE", "",
             "a GistNet sidecar (K 4) of the model's width: systems sessions then switch to "
             "learned gists too"},
            {"failure-trace", "FILE", "",
             "writes the trace of a session that fails there (kvw replay, the window's "
             "Open trace)"},
            {"edits-only", "", "",
             "no systems sessions (policies, rings, K/V types, wLOD, history): edits only"},
            backend_option("auto"),
        },
        run_soak_command};
}

}  // namespace kvw::cli
