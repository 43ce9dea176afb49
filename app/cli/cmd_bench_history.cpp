// kvw bench history: what undo, redo and fork cost (ARCHITECTURE §15, §16), which repeat the
// trace up to a point from the nearest checkpoint (`--checkpoint-every 0`: from the start, as
// before checkpoints), against the other way of going back, putting the mirror back and
// rebuilding the cache from it (timed as Session::rebuild at the last tick, whose state hash
// tells whether that way would be exact), and the bytes the checkpoints and a kept copy of the
// cache per tick take. A fork at a tick is what the window's past tick costs. Exit 1 when undo,
// redo or fork missed a recorded hash.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "commands.h"
#include "common_options.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"

namespace kvw::cli {
namespace {

using Clock = BenchClock;

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// The cache bytes of a state: what a kept snapshot of it would copy (the mirror is small).
double cache_mib(const Session& s) {
    const ModelConfig& c = s.model().config;
    int64_t rows = 0;
    for (int l = 0; l < s.state().n_layers(); ++l) rows += s.state().rows(l);
    return double(rows) * c.kv_dim() * 2 * sizeof(float) / (1024.0 * 1024.0);
}

int run_bench_history(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const int ticks = int(args.get_count("ticks", 100000));
    const int reps = int(args.get_count("reps", 1000));
    if (ticks < 20) throw UsageError("--ticks must be >= 20");
    if (reps < 1) throw UsageError("--reps must be >= 1");
    const int every = int(args.get_count("checkpoint-every", 100000));

    SessionOptions options;
    options.model = args.get("model");
    options.backend = args.get("backend");
    options.sampling.temperature = 0.8f;
    options.sampling.seed = 1;
    const std::shared_ptr<const Model> model = load_model(options.model);
    // The prompt takes 14 tokens of the model's context, the deletes give a few back.
    if (ticks + 16 > model->config.max_context)
        throw UsageError("--ticks must leave room for the prompt in the model's context of " +
                         std::to_string(model->config.max_context) + " tokens");

    // The run: sampled ticks with a delete injected every 50 ticks, so that rows go stale.
    Session s(options, model);
    s.set_checkpoint_options({every, CheckpointOptions{}.budget_bytes});
    std::vector<uint64_t> hashes;      // [tick]
    std::vector<uint64_t> by_command;  // [commands done]
    double kept_mib = 0;               // a copy of the cache after every tick, summed
    const auto t0 = Clock::now();
    by_command.push_back(s.state_hash());
    s.start("In the beginning God created the heaven and the earth.");
    hashes.push_back(s.state_hash());
    by_command.push_back(s.state_hash());
    for (int t = 1; t <= ticks; ++t) {
        if (t % 50 == 0) {
            s.inject({Action{DeleteAction{3}, {}}});
            by_command.push_back(s.state_hash());
        }
        s.step();
        hashes.push_back(s.state_hash());
        by_command.push_back(s.state_hash());
        kept_mib += cache_mib(s);
    }
    const size_t done = by_command.size() - 1;
    const double run_ms = ms_since(t0);

    std::printf("kvw bench history: %s, %d ticks (a delete every 50), %s backend, median of %d\n",
                options.model.c_str(), ticks, s.frame()->backend.c_str(), reps);
    std::printf("  the run itself:                 %9.1f ms (%.2f ms per tick)\n", run_ms,
                run_ms / ticks);
    const CheckpointStore& kept = s.checkpoints();
    std::printf("  checkpoints:                    %9zu kept, every %d ticks, %.1f MiB\n",
                kept.size(), kept.spacing(), double(kept.bytes()) / (1024.0 * 1024.0));

    // `body` timed, `exact` checked, then `back` (untimed) puts the session back.
    auto timed = [&](const char* what, auto&& body, auto&& exact, auto&& back) {
        std::vector<double> ms;
        bool all_exact = true;
        for (int r = 0; r < reps; ++r) {
            const auto start = Clock::now();
            body();
            ms.push_back(ms_since(start));
            all_exact = all_exact && exact();
            back();
        }
        std::printf("  %-31s %9.1f ms  hash as recorded: %s\n", what, median(ms),
                    yes_no(all_exact));
        return all_exact;
    };
    // Undo, redo and fork must give the recorded hashes: the exit status says whether they did.
    bool exact = timed(
        "undo 1 (replay)", [&] { s.undo(1); },
        [&] { return s.state_hash() == by_command[done - 1]; }, [&] { s.redo(1); });
    exact &= timed(
        "undo 10 (replay)", [&] { s.undo(10); },
        [&] { return s.state_hash() == by_command[done - 10]; }, [&] { s.redo(10); });
    s.undo(1);
    exact &= timed(
        "redo 1", [&] { s.redo(1); }, [&] { return s.state_hash() == hashes[size_t(ticks)]; },
        [&] { s.undo(1); });
    s.redo(1);
    std::unique_ptr<Session> fork;
    for (const int at : {ticks / 2, ticks}) {
        const std::string what = "fork / past tick " + std::to_string(at);
        exact &= timed(
            what.c_str(), [&] { fork = s.fork(at); },
            [&] { return fork->state_hash() == hashes[size_t(at)]; }, [&] { fork.reset(); });
    }
    // The mirror put back costs a copy of the maps; the rebuild is what that way pays. Last:
    // it changes the state when a row was stale.
    timed(
        "mirror back + rebuild (1 tick)", [&] { s.rebuild(); },
        [&] { return s.state_hash() == hashes[size_t(ticks)]; }, [] {});
    std::printf("  a kept state after every tick: %9.1f MiB of cache rows (%.2f MiB at the last)\n",
                kept_mib, cache_mib(s));
    if (!exact) std::fprintf(stderr, "kvw bench history: undo, redo or fork missed a hash\n");
    return exact ? 0 : 1;
}

}  // namespace

CommandSpec bench_history_command() {
    return {"bench history",
            "",
            "undo / redo / fork by replaying the trace from the nearest checkpoint, against "
            "restoring the mirror and rebuilding",
            {model_option(),
             {"ticks", "N", "200", "ticks in the run"},
             {"reps", "N", "3", "repetitions timed per operation"},
             {"checkpoint-every", "N", "16",
              "ticks between the session's checkpoints (0: none, every replay from the start)"},
             backend_option("auto")},
            run_bench_history};
}

}  // namespace kvw::cli
