// kvw replay: repeats a recorded trace and checks every recorded outcome.
#include <cstdio>
#include <string>

#include "commands.h"
#include "common_options.h"
#include "core/session/replay.h"

namespace kvw::cli {

namespace {

int run_replay(const CliArgs& args) {
    if (args.positional().size() != 1) throw UsageError("replay takes one trace file");
    const Trace trace = Trace::read(args.positional()[0]);
    ReplayTarget target;
    if (args.has("model")) target.model = args.get("model");
    if (args.has("backend")) target.backend = args.get("backend");
    const ReplayReport report = replay_trace(trace, target);
    for (const ReplayMismatch& m : report.mismatches)
        std::printf("%s:%zu: %s: %s recorded %s, replayed %s\n", args.positional()[0].c_str(),
                    m.line, m.event.c_str(), m.field.c_str(), m.expected.c_str(), m.actual.c_str());
    const std::string unhashed =
        report.unhashed_events
            ? " (" + std::to_string(report.unhashed_events) + " events without a state hash)"
            : "";
    const std::string skipped = hashes_not_compared(report);
    const std::string skipped_note = skipped.empty() ? "" : " (" + skipped + ")";
    std::printf("replayed %zu events, %zu outcomes checked%s%s, %zu mismatches: %s\n",
                report.events, report.checked, skipped_note.c_str(), unhashed.c_str(),
                report.mismatches.size(), report.ok() ? "identical" : "DIFFERENT");
    // A trace cut by a kill is replayed up to its last whole line: what it recorded holds, so
    // the exit status is that of the comparison; the note says the rest is missing.
    if (trace.cut_line()) std::printf("%s\n", trace.cut_note().c_str());
    return report.ok() ? 0 : 1;
}

}  // namespace

CommandSpec replay_command() {
    return {
        "replay",
        "TRACE",
        "repeat a trace recorded by kvw run, on the backend it recorded; checks every state hash "
        "(the tokens and the rest on a backend of other numerics), exit 1 on a mismatch; a trace "
        "cut by a kill is replayed up to its last whole line",
        {{"model", "SPEC", "", "load this model instead of the one the trace names"},
         {"backend", "NAME", "",
          "run on this backend instead of the one the trace recorded (" + backend_option("").help +
              "); on one of other numerics its state hashes are not compared, its tokens "
              "are"}},
        run_replay};
}

}  // namespace kvw::cli
