#include "core/model/model_shape.h"

namespace kvw {
namespace {

std::optional<ModelShapeFault> above(const char* key, int64_t value, int64_t limit,
                                     const std::string& what) {
    if (value <= limit) return std::nullopt;
    return ModelShapeFault{
        key, what + " " + std::to_string(value) + " exceeds the limit of " + std::to_string(limit)};
}

}  // namespace

std::optional<ModelShapeFault> find_shape_fault(const ModelConfig& c, const ModelShapeKeys& keys) {
    using L = ModelShapeLimits;
    // Each factor is a positive int, so the products below fit int64 exactly.
    const int64_t q_dim = int64_t(c.n_heads) * c.head_dim;
    const int64_t kv_dim = int64_t(c.n_kv_heads) * c.head_dim;
    const std::string heads_times_dim = std::string(" × ") + keys.head_dim;
    for (const auto& fault :
         {above(keys.n_layers, c.n_layers, L::kMaxLayers, "layer count"),
          above(keys.n_embd, c.n_embd, L::kMaxWidth, "width"),
          above(keys.n_ff, c.n_ff, L::kMaxWidth, "feed-forward width"),
          above(keys.head_dim, q_dim, L::kMaxWidth, keys.n_heads + heads_times_dim),
          above(keys.head_dim, kv_dim, L::kMaxWidth, keys.n_kv_heads + heads_times_dim),
          above(keys.vocab_size, c.vocab_size, L::kMaxVocab, "vocabulary size"),
          above(keys.max_context, c.max_context, L::kMaxContext, "context length")})
        if (fault) return fault;
    return std::nullopt;
}

}  // namespace kvw
