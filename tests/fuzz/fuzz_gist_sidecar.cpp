// Learned GistNet sidecars (`NAME.gist.gguf`, docs/ARCHITECTURE.md §14): the GGUF reader, then
// the gist net's metadata, tensor names, types, shapes and finiteness; on what it accepts, one
// gist per level from K children.
#include <span>
#include <vector>

#include "core/gist/gist_file.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    kvw::fuzz::accept_typed_errors<kvw::ModelError>([&] {
        const auto net = kvw::read_gist_net(
            kvw::bytes_in_memory(std::vector<uint8_t>(data, data + size), "fuzz.gist.gguf"));
        const std::vector<float> child(size_t(net->embedding_length()), 0.5f);
        const std::vector<std::span<const float>> children(size_t(net->block_size()), child);
        for (int level = 1; level <= 2; ++level)
            if (net->gist(children, level).size() != child.size())
                kvw::fuzz::finding("a gist of another width than its children");
    });
    return 0;
}
