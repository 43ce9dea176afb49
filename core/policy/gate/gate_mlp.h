#pragma once
#include <span>
#include <string>
#include <vector>

namespace kvw {

// Which key the gate reads (docs/ARCHITECTURE.md §12): the row's K as the cache holds it,
// rotated at its RoPE phase (PostRope), or rotated back to before RoPE (PreRope), which makes
// the score independent of the row's position.
enum class GateKeyKind { PreRope, PostRope };

const char* gate_key_kind_name(GateKeyKind kind);  // "pre-rope", "post-rope"
// Throws std::invalid_argument naming the text when it is neither name.
GateKeyKind gate_key_kind_from_name(const std::string& name);

// One fully connected layer: y = W x + b, W stored row-major [out][in].
struct GateDense {
    int in = 0;
    int out = 0;
    std::vector<float> weight;  // out * in
    std::vector<float> bias;    // out
};

// y[out] = W x + b, each output summed in index order in float (deterministic); `relu` clamps
// y at 0. The gate's forward and its training both call this.
void gate_dense_forward(const GateDense& layer, const float* x, float* y, bool relu);

struct GateShape {
    int n_layers = 0;   // one MLP per model layer
    int input_dim = 0;  // the key's width: the model's kv_dim (heads × head_dim)
    int hidden = 0;     // width of every hidden layer
    int depth = 0;      // fully connected layers; the last maps hidden → 1

    // in × out of fully connected layer i.
    int fc_in(int i) const { return i == 0 ? input_dim : hidden; }
    int fc_out(int i) const { return i == depth - 1 ? 1 : hidden; }
};

// The SmartKV gate (docs/ARCHITECTURE.md §12): per model layer an MLP of `depth` fully
// connected layers with ReLU between them that maps a token's key at that layer to the
// predicted log4(1 + lifespan) of the token there. Plain float32 on the CPU.
class GateMlp {
public:
    // Throws std::invalid_argument when a layer count or a dense layer's size disagrees with
    // `shape` (the sidecar reader checks files first and names the tensor).
    GateMlp(GateShape shape, GateKeyKind key_kind, std::vector<std::vector<GateDense>> layers);

    const GateShape& shape() const { return shape_; }
    GateKeyKind key_kind() const { return key_kind_; }
    const std::vector<GateDense>& layer(int l) const { return layers_.at(size_t(l)); }

    // key.size() == input_dim, else std::invalid_argument.
    float score(int layer, std::span<const float> key) const;

private:
    GateShape shape_;
    GateKeyKind key_kind_;
    std::vector<std::vector<GateDense>> layers_;  // [model layer][fc]
};

}  // namespace kvw
