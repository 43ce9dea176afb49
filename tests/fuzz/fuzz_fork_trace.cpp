// What `kvw fork` reads of a trace before it loads a model (app/cli/cmd_fork.cpp): the lines,
// the header's options and the cut at a tick (events_through_tick), which reads each event's
// name and its result's rejection. A cut must lie inside the trace, past the header.
#include "core/session/replay.h"
#include "core/session/session_error.h"
#include "core/session/trace.h"
#include "core/session/trace_events.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::TraceError, kvw::HistoryError>([&] {
        const kvw::Trace trace = kvw::Trace::parse(kvw::fuzz::as_text(data, size), "fuzz.ndjson");
        (void)kvw::options_from_header(trace.events().front(), trace.source());
        for (int64_t tick = 0; tick < 4; ++tick) {
            const size_t events = kvw::events_through_tick(trace, tick);
            if (events < 2 || events > trace.events().size())
                kvw::fuzz::finding("a fork's cut outside the trace");
        }
    });
    return 0;
}
