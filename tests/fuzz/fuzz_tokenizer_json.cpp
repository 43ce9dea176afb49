// tokenizer.json (Hugging Face "tokenizers" BPE), then the tokenizer it makes on a short text:
// a vocabulary the reader accepts must be one the tokenizer can run.
#include <vector>

#include "core/model/hf_tokenizer_json.h"
#include "core/model/model_error.h"
#include "core/model/tokenizer.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const kvw::Tokenizer tokenizer(
            kvw::parse_hf_tokenizer_json(kvw::fuzz::as_text(data, size), "tokenizer.json"));
        const std::vector<int32_t> ids = tokenizer.encode("Hello wörld 12 \xff", true);
        (void)tokenizer.decode(ids);
    });
    return 0;
}
