// kvw fork: the session a trace had at a tick, written as a trace of its own (ARCHITECTURE §16):
// the trace's events up to the tick (Session::fork's cut) repeated on its model, every recorded
// outcome checked, and the repeated session's trace written to --out. The window's
// Edit → Fork at tick… on the command line: `kvw replay OUT` then repeats the fork alone.
#include <cstdio>
#include <limits>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/trace_events.h"

namespace kvw::cli {

namespace {

int run_fork(const CliArgs& args) {
    if (args.positional().size() != 1) throw UsageError("fork takes one trace file");
    const std::string& file = args.positional()[0];
    const int64_t tick = args.get_count("at", std::numeric_limits<int32_t>::max());
    const std::string out = args.get("out");
    check_output_options(args, {"out"});
    const Trace trace = Trace::read(file);
    if (trace.events().empty()) throw TraceError("empty trace", 0, file);
    const size_t events = events_through_tick(trace, tick);
    std::string spec = options_from_header(trace.events().front(), file).model;
    if (args.has("model") && args.get("model") != spec) {
        spdlog::warn(
            "{}: recorded with the model {}, forked with {}: expect mismatches unless "
            "they compute the same numbers",
            file, spec, args.get("model"));
        spec = args.get("model");
    }
    ReplayReport report;
    const std::unique_ptr<Session> forked =
        session_from_trace(trace, events, load_model(spec), report);
    for (const ReplayMismatch& m : report.mismatches)
        std::printf("%s:%zu: %s: %s recorded %s, replayed %s\n", file.c_str(), m.line,
                    m.event.c_str(), m.field.c_str(), m.expected.c_str(), m.actual.c_str());
    if (!report.ok()) {
        std::printf("fork at tick %lld: %zu mismatches, nothing written\n", (long long)tick,
                    report.mismatches.size());
        return 1;
    }
    forked->trace().write(out);
    std::printf("forked at tick %lld: %zu of %zu events, state hash %s, written to %s\n",
                (long long)forked->tick(), events - 1, trace.events().size() - 1,
                hash_hex(forked->state_hash()).c_str(), out.c_str());
    return 0;
}

}  // namespace

CommandSpec fork_command() {
    return {"fork",
            "TRACE",
            "the session of a trace at a tick of its last sequence, written as a trace; exit 1 "
            "when a recorded outcome differs",
            {{"at", "TICK", "", "the tick (0: just after the prompt)", true},
             {"out", "FILE", "", "where the fork's trace goes", true},
             {"model", "SPEC", "", "load this model instead of the one the trace names"}},
            run_fork};
}

}  // namespace kvw::cli
