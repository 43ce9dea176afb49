// NDJSON session traces as kvw replay reads them before it loads a model: the lines, the
// header's options and every event decoded as the command it records.
#include "core/session/command/command_table.h"
#include "core/session/trace.h"
#include "core/session/trace_events.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::TraceError>([&] {
        const kvw::Trace trace = kvw::Trace::parse(kvw::fuzz::as_text(data, size));
        (void)kvw::options_from_header(trace.events().front());
        for (size_t i = 1; i < trace.events().size(); ++i)
            (void)kvw::decode_command(trace.events()[i], trace.line_of(i), trace.source());
    });
    return 0;
}
