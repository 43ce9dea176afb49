// One .safetensors file: the length prefix, the JSON header (dtypes, shapes, data offsets,
// __metadata__) and the bounds of every tensor's data.
#include <vector>

#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/safetensors_file.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const kvw::SafetensorsFile file(
            kvw::bytes_in_memory(std::vector<uint8_t>(data, data + size), "fuzz.safetensors"));
        for (const kvw::SafetensorsTensor& t : file.tensors()) {
            if (file.find(t.name) != &t) kvw::fuzz::finding("find() misses a listed tensor");
            if (file.data(t).size() != t.size) kvw::fuzz::finding("data() size differs");
        }
    });
    return 0;
}
