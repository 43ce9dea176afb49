// .kvs screenshot scripts: every command, its numbers and words, and the action JSON of
// inject/apply lines.
#include "core/script/script_error.h"
#include "core/script/script_parser.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ScriptError>(
        [&] { (void)kvw::parse_script(kvw::fuzz::as_text(data, size), "fuzz.kvs"); });
    return 0;
}
