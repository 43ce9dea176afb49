// GGUF: the reader (header, metadata, tensor infos, data bounds) and, on what it accepts, the
// llama model loader on top (config keys, vocabulary, weights, dequantisation, NaN scan), then
// the loaded tokenizer on a short text.
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const auto source =
            kvw::bytes_in_memory(std::vector<uint8_t>(data, data + size), "fuzz.gguf");
        const kvw::GgufFile file(source);
        for (const kvw::GgufTensorInfo& t : file.tensors()) (void)file.tensor_bytes(t);
        const auto model = kvw::load_gguf_model(source);
        const std::vector<int32_t> ids = model->tokenizer.encode("Hello wörld 12 \xff", true);
        (void)model->tokenizer.decode(ids);
    });
    return 0;
}
