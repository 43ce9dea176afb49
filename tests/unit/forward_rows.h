#pragma once
// A forward's new K or V (ForwardOutput::k, v: in the backend's memory) brought to the host, every
// layer's, for tests that compare them.
#include <vector>

#include "core/engine/forward_output.h"

namespace kvw::test {

// [layer][n_items · kv_dim]
inline std::vector<std::vector<float>> host_layers(const LayerRows& rows) {
    std::vector<std::vector<float>> out;
    for (int l = 0; l < rows.layers(); ++l) out.push_back(rows.host(l));
    return out;
}

}  // namespace kvw::test
