#include "core/policy/gate/gate_key.h"

#include <stdexcept>
#include <string>

#include "core/math/rope.h"

namespace kvw {

std::vector<float> gate_key(std::span<const float> k, double rope_pos, const ModelConfig& config,
                            const RopeParams& rope, GateKeyKind kind) {
    if (k.size() != size_t(config.kv_dim()))
        throw std::invalid_argument("gate_key: a K row of " + std::to_string(k.size()) +
                                    " floats, the model's kv_dim is " +
                                    std::to_string(config.kv_dim()));
    std::vector<float> key(k.begin(), k.end());
    if (kind == GateKeyKind::PreRope)
        for (int h = 0; h < config.n_kv_heads; ++h)
            rope_unrotate(key.data() + size_t(h) * size_t(config.head_dim), config.head_dim,
                          rope_pos, rope);
    return key;
}

}  // namespace kvw
