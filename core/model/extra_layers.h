#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvw {

// A tensor of a layer the config does not declare.
struct ExtraLayerTensor {
    int64_t layer;
    std::string name;
};

// Among `names`, the tensors PREFIX N.* ("model.layers." for Hugging Face, "blk." for GGUF)
// with N >= n_layers: the first by name of the deepest such layer, or nothing. A checkpoint
// with more layers than its config declares would otherwise run as a shallower model without
// a word (HF's own loader drops them with a warning). An index too large for int64 counts as
// the deepest.
std::optional<ExtraLayerTensor> find_extra_layer(const std::vector<std::string>& names,
                                                 std::string_view prefix, int n_layers);

}  // namespace kvw
