// kvw run: tick transactions headless, with a proposer, injected actions and a trace.
#include <cstdio>

#include "cli_args.h"
#include "commands.h"
#include "core/session/session.h"
#include "core/state/action_json.h"
#include "sampling_args.h"

namespace kvw::cli {

namespace {

const char* outcome(const TickResult& r) {
    return r.rejected ? "rejected" : r.aborted ? "aborted+rebuilt" : "ok";
}

}  // namespace

int cmd_run(const Words& words) {
    const CliArgs args(words, {"model", "prompt", "ticks", "policy", "rope", "actions", "trace",
                               "seed", "temp", "top-k", "top-p", "backend", "capacity", "layout"});
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    SessionOptions options;
    options.model = args.get("model", "synthetic:tiny");
    options.backend = args.get("backend", "cpu");
    options.capacity = args.get_count("capacity", 0, INT64_MAX);  // Session checks it
    options.proposer = args.get("policy", "manual");
    options.sampling = sampling_from_args(args);
    const auto rope = parse_rope_policy(args.get("rope", "final_index"));
    if (!rope) throw UsageError("--rope takes final_index, reindex or original");
    options.rope_policy = *rope;
    const auto layout = parse_cache_layout(args.get("layout", "contiguous"));
    if (!layout) throw UsageError("--layout takes contiguous, batch_splice or indirection");
    options.layout = *layout;
    const long ticks = long(args.get_count("ticks", 16, INT32_MAX));
    // Read before the model loads, so that a bad file fails fast.
    const ActionList injected =
        args.has("actions") ? read_action_list_file(args.get("actions", "")) : ActionList{};

    Session session(options);
    session.start(args.get("prompt", ""));
    if (!injected.empty()) session.inject(injected);
    std::printf("tick  token  rows(l0)  actions  outcome  invariants  state_hash\n");
    for (long i = 0; i < ticks; ++i) {
        const TickResult r = session.step();
        const FramePtr f = session.frame();
        const int32_t token = session.trace().events().back().at("token").get<int32_t>();
        std::printf("%4lld  %5d  %8d  %7zu  %-8s %-10s  %016llx\n",
                    static_cast<long long>(f->tick), token, f->layers.front().rows(),
                    f->last_actions.size(), outcome(r), f->all_invariants_pass() ? "pass" : "FAIL",
                    static_cast<unsigned long long>(f->state_hash));
        if (!f->last_error.empty()) std::printf("      %s\n", f->last_error.c_str());
    }
    std::printf("text: %s\n", session.model().tokenizer.decode(session.state().tokens(0)).c_str());
    if (args.has("trace")) {
        session.trace().write(args.get("trace", ""));
        std::printf("trace: %s (%zu events)\n", args.get("trace", "").c_str(),
                    session.trace().events().size());
    }
    return 0;
}

}  // namespace kvw::cli
