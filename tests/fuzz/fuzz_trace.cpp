// NDJSON session traces as kvw replay reads them before it loads a model: the lines, the
// header's options and the action lists that inject and apply_now events carry.
#include "core/session/trace.h"
#include "core/session/trace_events.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::TraceError>([&] {
        const kvw::Trace trace = kvw::Trace::parse(kvw::fuzz::as_text(data, size));
        (void)kvw::options_from_header(trace.events().front());
        for (size_t i = 1; i < trace.events().size(); ++i)
            if (trace.events()[i].contains("actions"))
                (void)kvw::actions_from_event(trace.events()[i], i + 1);
    });
    return 0;
}
