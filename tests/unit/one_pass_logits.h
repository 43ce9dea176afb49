#pragma once
// Shared by the tests that compare the engine with a float64 Python forward pass
// (test_rope_layouts, test_architectures): the engine's logits of one pass, and how far they
// are from the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/engine/transformer.h"

namespace kvw::test {

// Logits of the last token after one pass over `ids` at positions 0..n-1.
inline std::vector<float> one_pass_logits(const Transformer& transformer,
                                          const std::vector<int32_t>& ids) {
    std::vector<Item> items;
    std::vector<int32_t> positions;
    for (size_t i = 0; i < ids.size(); ++i) {
        items.push_back(Item::of_token(ids[i]));
        positions.push_back(int32_t(i));
    }
    const std::vector<LayerContext> empty(size_t(transformer.model().config.n_layers));
    return transformer.forward(items, positions, empty).logits;
}

// max |a - b| / max |b|
inline double relative_error(const std::vector<float>& a, const std::vector<double>& b) {
    double diff = 0.0, scale = 0.0;
    for (size_t i = 0; i < b.size(); ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    return diff / scale;
}

}  // namespace kvw::test
