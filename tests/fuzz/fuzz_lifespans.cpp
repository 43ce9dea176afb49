// Recorded lifespans (`kvw run --record-lifespans`, docs/ARCHITECTURE.md §12): the GGUF reader,
// then the metadata bounds, the per-layer key and tick tensors and every value's range.
#include <cstdlib>
#include <vector>

#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/policy/gate/lifespan_records.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const kvw::LifespanRecords r = kvw::read_lifespans(
            kvw::bytes_in_memory(std::vector<uint8_t>(data, data + size), "fuzz.lifespans.gguf"));
        // What the reader promises: one key of key_dim floats per lifespan.
        for (const auto& layer : r.layers)
            if (layer.keys.size() != layer.count() * size_t(r.key_dim)) std::abort();
    });
    return 0;
}
