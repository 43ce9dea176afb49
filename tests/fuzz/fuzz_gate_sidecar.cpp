// SmartKV gate sidecars (`NAME.gate.gguf`, docs/ARCHITECTURE.md §12): the GGUF reader, then the
// gate's metadata, tensor names, types and shapes; on what it accepts, one forward per layer.
#include <vector>

#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/policy/gate/gate_file.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const kvw::GateMlp gate = kvw::read_gate(
            kvw::bytes_in_memory(std::vector<uint8_t>(data, data + size), "fuzz.gate.gguf"));
        const std::vector<float> key(size_t(gate.shape().input_dim), 0.5f);
        for (int l = 0; l < gate.shape().n_layers; ++l) (void)gate.score(l, key);
    });
    return 0;
}
