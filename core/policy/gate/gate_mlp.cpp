#include "core/policy/gate/gate_mlp.h"

#include <stdexcept>

namespace kvw {

const char* gate_key_kind_name(GateKeyKind kind) {
    return kind == GateKeyKind::PreRope ? "pre-rope" : "post-rope";
}

GateKeyKind gate_key_kind_from_name(const std::string& name) {
    if (name == "pre-rope") return GateKeyKind::PreRope;
    if (name == "post-rope") return GateKeyKind::PostRope;
    throw std::invalid_argument("unknown gate key kind '" + name +
                                "' (known: pre-rope, post-rope)");
}

void gate_dense_forward(const GateDense& layer, const float* x, float* y, bool relu) {
    for (int o = 0; o < layer.out; ++o) {
        const float* w = layer.weight.data() + size_t(o) * size_t(layer.in);
        float sum = layer.bias[size_t(o)];
        for (int i = 0; i < layer.in; ++i) sum += w[i] * x[i];
        y[o] = relu && sum < 0.0f ? 0.0f : sum;
    }
}

GateMlp::GateMlp(GateShape shape, GateKeyKind key_kind, std::vector<std::vector<GateDense>> layers)
    : shape_(shape), key_kind_(key_kind), layers_(std::move(layers)) {
    if (shape_.n_layers < 1 || shape_.input_dim < 1 || shape_.hidden < 1 || shape_.depth < 1)
        throw std::invalid_argument(
            "gate shape needs at least one layer, input, hidden unit and "
            "fully connected layer");
    if (int(layers_.size()) != shape_.n_layers)
        throw std::invalid_argument("gate has " + std::to_string(layers_.size()) +
                                    " layers, shape says " + std::to_string(shape_.n_layers));
    for (size_t l = 0; l < layers_.size(); ++l) {
        if (int(layers_[l].size()) != shape_.depth)
            throw std::invalid_argument("gate layer " + std::to_string(l) + " has " +
                                        std::to_string(layers_[l].size()) +
                                        " fc layers, shape "
                                        "says " +
                                        std::to_string(shape_.depth));
        for (int i = 0; i < shape_.depth; ++i) {
            const GateDense& d = layers_[l][size_t(i)];
            if (d.in != shape_.fc_in(i) || d.out != shape_.fc_out(i) ||
                d.weight.size() != size_t(d.in) * size_t(d.out) || d.bias.size() != size_t(d.out))
                throw std::invalid_argument("gate layer " + std::to_string(l) + " fc" +
                                            std::to_string(i) + " does not match the shape");
        }
    }
}

float GateMlp::score(int layer, std::span<const float> key) const {
    if (int(key.size()) != shape_.input_dim)
        throw std::invalid_argument("gate input has " + std::to_string(key.size()) +
                                    " values, the gate takes " + std::to_string(shape_.input_dim));
    const std::vector<GateDense>& fcs = layers_.at(size_t(layer));
    std::vector<float> a(key.begin(), key.end()), b;
    for (size_t i = 0; i < fcs.size(); ++i) {
        b.resize(size_t(fcs[i].out));
        gate_dense_forward(fcs[i], a.data(), b.data(), i + 1 < fcs.size());
        a.swap(b);
    }
    return a[0];
}

}  // namespace kvw
