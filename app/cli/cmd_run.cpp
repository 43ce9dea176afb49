// kvw run: tick transactions headless, with a proposer, injected actions and a trace.
#include <cstdio>
#include <vector>

#include "commands.h"
#include "common_options.h"
#include "core/session/session.h"
#include "core/state/action_json.h"
#include "sampling_args.h"
#include "session_args.h"

namespace kvw::cli {

namespace {

const char* outcome(const TickResult& r) {
    return r.rejected ? "rejected" : r.aborted ? "aborted+rebuilt" : "ok";
}

int run_run(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    SessionOptions options;
    options.model = args.get("model");
    options.backend = args.get("backend");
    options.capacity = args.get_count("capacity", INT64_MAX);  // Session checks it
    options.sampling = sampling_from_args(args);
    read_session_options(args, options);
    const long ticks = long(args.get_count("ticks", INT32_MAX));
    // Read before the model loads, so that a bad file fails fast.
    const ActionList injected =
        args.has("actions") ? read_action_list_file(args.get("actions")) : ActionList{};

    Session session(options);
    session.start(args.get("prompt"));
    if (!injected.empty()) session.inject(injected);
    std::printf("tick  token  rows(l0)  actions  outcome  invariants  state_hash\n");
    for (long i = 0; i < ticks; ++i) {
        const TickResult r = session.step();
        const FramePtr f = session.frame();
        const int32_t token = session.trace().events().back().at("token").get<int32_t>();
        std::printf("%4lld  %5d  %8d  %7zu  %-8s %-10s  %016llx\n", static_cast<long long>(f->tick),
                    token, f->layers.front().rows(), f->last_actions.size(), outcome(r),
                    f->all_invariants_pass() ? "pass" : "FAIL",
                    static_cast<unsigned long long>(f->state_hash));
        if (!f->last_error.empty()) std::printf("      %s\n", f->last_error.c_str());
    }
    std::vector<int32_t> text_ids = session.state().tokens(0);
    std::erase(text_ids, -1);  // wLOD gist rows stand for tokens without being one
    std::printf("text: %s\n", session.model().tokenizer.decode(text_ids).c_str());
    if (args.has("trace")) {
        session.trace().write(args.get("trace"));
        std::printf("trace: %s (%zu events)\n", args.get("trace").c_str(),
                    session.trace().events().size());
    }
    return 0;
}

}  // namespace

CommandSpec run_command() {
    OptionTable options = {
        model_option(),
        {"prompt", "TEXT", "", "the prompt, after BOS"},
        {"ticks", "N", "16", "ticks to run"},
    };
    for (const OptionSpec& o : session_options()) options.push_back(o);
    options.push_back({"actions", "FILE", "", "an action list (JSON) queued for the first tick"});
    options.push_back({"trace", "OUT", "", "write the NDJSON trace that kvw replay repeats"});
    options.push_back(
        {"capacity", "ROWS", "0",
         "rows per layer, at most the model's context and what memory allows; 0: the model's "
         "context, at most 8192"});
    for (const OptionSpec& o : sampling_options()) options.push_back(o);
    options.push_back(backend_option("cpu"));
    return {"run", "", "tick transactions headless: proposer, injected actions, invariants, trace",
            options, run_run};
}

}  // namespace kvw::cli
