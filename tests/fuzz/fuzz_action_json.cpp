// Action lists (JSON array, one object or NDJSON), then what the tick does with a parsed list
// before touching any state: the round trip through to_json, pre-flight validation against a
// small sequence and the application order.
#include "core/state/action_json.h"
#include "core/state/action_validation.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ActionParseError>([&] {
        const kvw::ActionList list = kvw::parse_action_list(kvw::fuzz::as_text(data, size));
        if (kvw::parse_action_list(kvw::to_json(list)) != list)
            kvw::fuzz::finding("parse_action_list(to_json(list)) != list");
        kvw::SequenceShape shape;
        shape.rows_per_layer = {16, 16, 12, 0};
        shape.capacity = 64;
        shape.vocab_size = 300;
        (void)kvw::validate_action_list(list, shape);
        if (kvw::application_order(list).size() != list.size())
            kvw::fuzz::finding("application_order() lost or added actions");
    });
    return 0;
}
