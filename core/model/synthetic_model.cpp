#include "core/model/synthetic_model.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/math/half.h"
#include "core/model/gguf_writer.h"
#include "core/model/model_error.h"
#include "core/model/parallel_ranges.h"
#include "core/model/quantize.h"
#include "core/model/synthetic_vocabulary.h"

namespace kvw {
namespace {

constexpr uint64_t kDefaultSeed = 0x6b76772d73796e74;  // "kvw-synt"

// splitmix64 output for counter i of a stream: the generator's state after i + 1 steps is
// seed + (i + 1) * gamma, so any element can be drawn directly and ranges drawn in parallel
// give the same values as one sequential pass.
uint64_t splitmix64(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A normal-ish draw with mean 0 and variance 1 from one 64-bit value: the sum of its four
// 16-bit lanes, each (v + 1/2) / 65536 - 1/2 uniform on (-1/2, 1/2) with variance 1/12,
// times sqrt(3). The lane sum is an exact integer, so only one rounding happens and the
// weights do not depend on the platform's libm.
float normalish(uint64_t bits) {
    const int32_t lanes = int32_t(bits & 0xffff) + int32_t((bits >> 16) & 0xffff) +
                          int32_t((bits >> 32) & 0xffff) + int32_t(bits >> 48);
    return float(lanes - 131070) * (1.7320508f / 65536.0f);
}

// Every tensor gets its own stream, so a tensor's values do not depend on the others.
uint64_t tensor_seed(uint64_t seed, const std::string& name) {
    uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
    for (const char c : name) h = (h ^ uint8_t(c)) * 0x100000001b3ull;
    return splitmix64(seed ^ h, 0);
}

// `rows` × `cols` values mean + stddev * normalish(), in the file encoding of `type`.
std::vector<uint8_t> random_values(GgufType type, int64_t rows, int64_t cols, uint64_t seed,
                                   float mean, float stddev) {
    std::vector<float> values(size_t(rows) * size_t(cols));
    for_each_range(values.size(), size_t(1) << 20, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
            values[i] = mean + stddev * normalish(splitmix64(seed, i));
    });
    return quantize_rows(type, values.data(), rows, cols);
}

class TensorWriter {
public:
    TensorWriter(GgufWriter& writer, uint64_t seed) : writer_(writer), seed_(seed) {}

    // A [rows][cols] matrix whose entries have std 1/sqrt(cols) (cols is the fan-in), so a
    // unit-RMS input gives unit-RMS outputs; `stddev` overrides that.
    void matrix(const std::string& name, GgufType type, int64_t rows, int64_t cols,
                float stddev = 0.0f) {
        if (stddev == 0.0f) stddev = 1.0f / std::sqrt(float(cols));
        writer_.add_tensor(name, type, {uint64_t(cols), uint64_t(rows)},
                           random_values(type, rows, cols, tensor_seed(seed_, name), 0.0f, stddev));
    }
    // RMSNorm weights near 1, kept F32 as llama.cpp keeps them.
    void norm(const std::string& name, int64_t n) {
        writer_.add_tensor(
            name, GgufType::F32, {uint64_t(n)},
            random_values(GgufType::F32, 1, n, tensor_seed(seed_, name), 1.0f, 0.05f));
    }

private:
    GgufWriter& writer_;
    uint64_t seed_;
};

uint32_t llama_file_type(GgufType weight_type) {
    switch (weight_type) {
        case GgufType::F32: return 0;    // LLAMA_FTYPE_ALL_F32
        case GgufType::F16: return 1;    // LLAMA_FTYPE_MOSTLY_F16
        case GgufType::BF16: return 32;  // LLAMA_FTYPE_MOSTLY_BF16
        case GgufType::Q4_0: return 2;   // LLAMA_FTYPE_MOSTLY_Q4_0
        case GgufType::Q8_0: return 7;   // LLAMA_FTYPE_MOSTLY_Q8_0
        case GgufType::Q4_K: return 14;  // LLAMA_FTYPE_MOSTLY_Q4_K_S (every matrix Q4_K)
        case GgufType::Q6_K: return 18;  // LLAMA_FTYPE_MOSTLY_Q6_K
    }
    return 0;
}

template <typename T>
GgufArray array_of(GgufValueType type, const std::vector<T>& values) {
    std::vector<GgufValue> elements;
    elements.reserve(values.size());
    for (const T& v : values) elements.emplace_back(v);
    return GgufArray(uint32_t(type), std::move(elements));
}

void add_vocabulary(GgufWriter& w, const Vocabulary& v) {
    std::vector<int32_t> types;
    for (const TokenType t : v.types) types.push_back(int32_t(t));
    w.add("tokenizer.ggml.model", std::string("llama"));
    w.add("tokenizer.ggml.tokens", array_of(GgufValueType::String, v.pieces));
    w.add("tokenizer.ggml.scores", array_of(GgufValueType::Float32, v.scores));
    w.add("tokenizer.ggml.token_type", array_of(GgufValueType::Int32, types));
    w.add("tokenizer.ggml.bos_token_id", uint32_t(v.bos_id));
    w.add("tokenizer.ggml.eos_token_id", uint32_t(v.eos_id));
    w.add("tokenizer.ggml.unknown_token_id", uint32_t(v.unk_id));
    w.add("tokenizer.ggml.add_bos_token", v.add_bos);
    w.add("tokenizer.ggml.add_space_prefix", v.add_space_prefix);
}

void add_config(GgufWriter& w, const SyntheticSpec& spec) {
    const ModelConfig& c = spec.config;
    w.add("general.architecture", std::string("llama"));
    w.add("general.name", c.name);
    w.add("general.file_type", llama_file_type(spec.weight_type));
    w.add("llama.vocab_size", uint32_t(c.vocab_size));
    w.add("llama.context_length", uint32_t(c.max_context));
    w.add("llama.embedding_length", uint32_t(c.n_embd));
    w.add("llama.block_count", uint32_t(c.n_layers));
    w.add("llama.feed_forward_length", uint32_t(c.n_ff));
    w.add("llama.attention.head_count", uint32_t(c.n_heads));
    w.add("llama.attention.head_count_kv", uint32_t(c.n_kv_heads));
    w.add("llama.rope.dimension_count", uint32_t(c.head_dim));
    w.add("llama.rope.freq_base", c.rope_theta);
    w.add("llama.attention.layer_norm_rms_epsilon", c.rms_eps);
}

ModelConfig llama_config(std::string name, int n_layers, int n_embd, int n_heads, int n_kv_heads,
                         int n_ff, int vocab_size) {
    ModelConfig c;
    c.name = std::move(name);
    c.n_layers = n_layers;
    c.n_embd = n_embd;
    c.n_heads = n_heads;
    c.n_kv_heads = n_kv_heads;
    c.head_dim = n_embd / n_heads;
    c.n_ff = n_ff;
    c.vocab_size = vocab_size;
    c.max_context = 2048;
    c.rope_theta = 10000.0f;
    c.rms_eps = 1e-5f;
    c.rope_layout = RopeLayout::Interleaved;
    return c;
}

ModelError unknown_model(std::string_view name) {
    return ModelError(ModelErrorKind::CannotOpen, "synthetic:" + std::string(name),
                      "unknown synthetic model (known: tiny, thin-22, tinyllama-shape, optionally "
                      "followed by :TYPE, TYPE one of " +
                          gguf_type_names(", ") + ")");
}

}  // namespace

SyntheticSpec synthetic_spec(std::string_view name) {
    const size_t colon = name.find(':');
    const std::string_view base = name.substr(0, colon);
    if (colon == std::string_view::npos)
        return synthetic_spec(base, base == "tinyllama-shape" ? GgufType::F16 : GgufType::F32);
    if (const auto type = gguf_type_from_name(name.substr(colon + 1)))
        return synthetic_spec(base, *type);
    throw unknown_model(name);
}

SyntheticSpec synthetic_spec(std::string_view name, GgufType weight_type) {
    if (name == "tiny")
        return {"tiny", llama_config("tiny", 4, 256, 8, 4, 768, 2048), weight_type, kDefaultSeed};
    if (name == "thin-22") {
        // 22 layers like TinyLlama, but 4 wide with one head and a context of 128k, so that
        // prefilling 100,000 rows (whose attention grows with the square of the rows) takes
        // minutes, not hours: the long-context benchmarks' model (bench ui, bench tick).
        ModelConfig c = llama_config("thin-22", 22, 4, 1, 1, 8, 2048);
        c.max_context = 131072;
        return {"thin-22", c, weight_type, kDefaultSeed};
    }
    if (name == "tinyllama-shape")
        return {"tinyllama-shape", llama_config("tinyllama-shape", 22, 2048, 32, 4, 5632, 32000),
                weight_type, kDefaultSeed};
    throw unknown_model(name);
}

std::vector<uint8_t> write_synthetic_gguf(const SyntheticSpec& spec) {
    const ModelConfig& c = spec.config;
    const GgufType wt = spec.weight_type;
    GgufWriter writer;
    add_config(writer, spec);
    add_vocabulary(writer, synthetic_vocabulary(c.vocab_size));

    TensorWriter t(writer, spec.seed);
    // Unit-variance embeddings: the residual stream starts at RMS 1, on the scale of what
    // each layer adds, so the token's identity is neither drowned nor dominant.
    t.matrix("token_embd.weight", wt, c.vocab_size, c.n_embd, 1.0f);
    for (int l = 0; l < c.n_layers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        t.norm(blk + "attn_norm.weight", c.n_embd);
        t.matrix(blk + "attn_q.weight", wt, c.q_dim(), c.n_embd);
        t.matrix(blk + "attn_k.weight", wt, c.kv_dim(), c.n_embd);
        t.matrix(blk + "attn_v.weight", wt, c.kv_dim(), c.n_embd);
        t.matrix(blk + "attn_output.weight", wt, c.n_embd, c.q_dim());
        t.norm(blk + "ffn_norm.weight", c.n_embd);
        t.matrix(blk + "ffn_gate.weight", wt, c.n_ff, c.n_embd);
        t.matrix(blk + "ffn_up.weight", wt, c.n_ff, c.n_embd);
        t.matrix(blk + "ffn_down.weight", wt, c.n_embd, c.n_ff);
    }
    t.norm("output_norm.weight", c.n_embd);
    t.matrix("output.weight", wt, c.vocab_size, c.n_embd);
    return writer.to_bytes();
}

std::shared_ptr<const ByteSource> synthetic_source(const SyntheticSpec& spec) {
    return bytes_in_memory(write_synthetic_gguf(spec), "synthetic:" + spec.name);
}

std::shared_ptr<const ByteSource> synthetic_source(std::string_view name) {
    return bytes_in_memory(write_synthetic_gguf(synthetic_spec(name)),
                           "synthetic:" + std::string(name));
}

}  // namespace kvw
