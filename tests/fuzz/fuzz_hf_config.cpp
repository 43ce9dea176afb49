// config.json of a Hugging Face Llama checkpoint.
#include "core/model/hf_config.h"
#include "core/model/model_error.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>(
        [&] { (void)kvw::parse_hf_config(kvw::fuzz::as_text(data, size), "config.json"); });
    return 0;
}
