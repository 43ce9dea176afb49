#pragma once
#include <span>
#include <vector>

#include "core/model/model_config.h"
#include "core/policy/gate/gate_mlp.h"

namespace kvw {

// The key the gate reads for a cache row (kv_dim floats) from its K as the cache holds it,
// rotated at phase `rope_pos`: that K as it is (PostRope), or with every head rotated back by
// the phase (PreRope), which is the token's key before RoPE whatever the row's position
// (docs/ARCHITECTURE.md §12). `rope` is how the cache's engine rotated it (Transformer::rope).
std::vector<float> gate_key(std::span<const float> k, double rope_pos, const ModelConfig& config,
                            const RopeParams& rope, GateKeyKind kind);

}  // namespace kvw
