#include "core/model/gguf_model_loader.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include <spdlog/spdlog.h>

#include "core/model/architecture.h"
#include "core/model/extra_layers.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_vocabulary.h"
#include "core/model/model_error.h"
#include "core/model/model_shape.h"
#include "core/model/weight_scan.h"

namespace kvw {
namespace {

int positive_int(const GgufFile& file, const char* key) {
    const uint32_t v = file.get_u32(key);
    if (v == 0 || v > uint32_t(INT_MAX)) file.bad_metadata(key, "must be a positive int32");
    return int(v);
}

// RoPE's base and RMSNorm's epsilon: NaN, infinity, zero or a negative value would make every
// logit NaN or constant, which the invariants (about the cache, not the maths) cannot see.
float positive_finite(const GgufFile& file, const char* key, std::optional<float> fallback) {
    const float v = fallback ? file.get_f32(key, *fallback) : file.get_f32(key);
    if (!std::isfinite(v) || !(v > 0.0f))
        file.bad_metadata(key, "must be a positive finite number, is " + std::to_string(v));
    return v;
}

// Checked before anything else, so that another model family is reported as such.
const Architecture& require_architecture(const GgufFile& file) {
    const std::string& arch = file.get_string("general.architecture");
    const Architecture* a = find_gguf_architecture(arch);
    if (!a)
        file.bad_metadata("general.architecture", "is \"" + arch +
                                                      "\"; the supported architectures are " +
                                                      supported_gguf_architectures());
    return *a;
}

// ARCH.rope.scaling.type: none, linear (ARCH.rope.scaling.factor, or the older
// ARCH.rope.scale_linear) or longrope; llama3 scaling has no key but the rope_freqs.weight
// tensor, and LongRoPE is known by its factor tensors as often as by the key (both read with
// the weights, read_frequency_divisors). YaRN and anything else are refused by name.
void read_rope_scaling(const GgufFile& file, const std::string& arch, ModelConfig& c) {
    const std::string type_key = arch + ".rope.scaling.type";
    const std::string factor_key = arch + ".rope.scaling.factor";
    const std::string old_key = arch + ".rope.scale_linear";
    const std::string type = file.has(type_key)  ? file.get_string(type_key)
                             : file.has(old_key) ? std::string("linear")
                                                 : std::string("none");
    if (type == "none") return;
    if (type == "longrope") {
        c.rope_scaling = RopeScaling::LongRope;
        return;
    }
    if (type != "linear")
        file.bad_metadata(type_key, "is \"" + type +
                                        "\"; the supported RoPE scalings are none, linear, "
                                        "longrope and llama3 (rope_freqs.weight)");
    const std::string& key = file.has(factor_key) || !file.has(old_key) ? factor_key : old_key;
    c.rope_scaling = RopeScaling::Linear;
    c.rope_scale_factor = positive_finite(file, key.c_str(), std::nullopt);
}

// `vocab_size` is the tokenizer's: GGUF files need not say it among the ARCH.* keys. Every key
// is ARCH.NAME, as llama.cpp's converter writes them.
ModelConfig read_config(const GgufFile& file, const Architecture& arch, int vocab_size) {
    const std::string a(arch.name);
    const auto key = [&](const char* name) { return a + "." + name; };
    const std::string block_count = key("block_count"), embd = key("embedding_length"),
                      heads = key("attention.head_count"),
                      kv_heads = key("attention.head_count_kv"), ffn = key("feed_forward_length"),
                      context = key("context_length"), key_length = key("attention.key_length"),
                      value_length = key("attention.value_length"),
                      rope_dims = key("rope.dimension_count");
    ModelConfig c;
    c.architecture = a;
    if (const GgufValue* name = file.find("general.name"))
        if (const std::string* s = std::get_if<std::string>(name)) c.name = *s;
    c.n_layers = positive_int(file, block_count.c_str());
    c.n_embd = positive_int(file, embd.c_str());
    c.n_heads = positive_int(file, heads.c_str());
    c.n_kv_heads = file.has(kv_heads) ? positive_int(file, kv_heads.c_str()) : c.n_heads;
    c.n_ff = positive_int(file, ffn.c_str());
    c.max_context = positive_int(file, context.c_str());
    c.rope_theta = positive_finite(file, key("rope.freq_base").c_str(), 10000.0f);
    c.rms_eps =
        positive_finite(file, key("attention.layer_norm_rms_epsilon").c_str(), std::nullopt);
    c.rope_layout = arch.gguf_rope;
    c.qkv_bias = arch.qkv_bias;
    c.qk_norm = arch.qk_norm;
    c.vocab_size = vocab_size;
    // An explicit head dimension (Qwen3) need not be embedding_length / head_count.
    const bool explicit_head_dim = file.has(key_length);
    c.head_dim = explicit_head_dim ? positive_int(file, key_length.c_str()) : c.n_embd / c.n_heads;
    // Absurd sizes first: the consistency checks below would otherwise blame another key.
    const ModelShapeKeys keys = {block_count.c_str(),
                                 embd.c_str(),
                                 heads.c_str(),
                                 kv_heads.c_str(),
                                 explicit_head_dim ? key_length.c_str() : embd.c_str(),
                                 ffn.c_str(),
                                 "tokenizer.ggml.tokens",
                                 context.c_str()};
    if (const auto fault = find_shape_fault(c, keys)) file.bad_metadata(fault->key, fault->why);

    if (!explicit_head_dim && c.n_embd % c.n_heads != 0)
        file.bad_metadata(heads, std::to_string(c.n_heads) +
                                     " heads do not divide embedding_length " +
                                     std::to_string(c.n_embd));
    if (file.has(value_length) && file.get_u32(value_length) != uint32_t(c.head_dim))
        file.bad_metadata(value_length, "is " + std::to_string(file.get_u32(value_length)) +
                                            ", the key length is " + std::to_string(c.head_dim) +
                                            " (different K and V widths are not supported)");
    if (c.head_dim % 2 != 0)
        file.bad_metadata(
            explicit_head_dim ? key_length : heads,
            "head dimension " + std::to_string(c.head_dim) + " is odd; RoPE rotates pairs");
    if (c.n_heads % c.n_kv_heads != 0)
        file.bad_metadata(kv_heads, std::to_string(c.n_kv_heads) + " KV heads do not divide " +
                                        std::to_string(c.n_heads) + " query heads");
    if (file.has(rope_dims) && file.get_u32(rope_dims) != uint32_t(c.head_dim))
        file.bad_metadata(rope_dims, "is " + std::to_string(file.get_u32(rope_dims)) +
                                         ", the head dimension is " + std::to_string(c.head_dim) +
                                         " (partial RoPE is not supported)");
    read_rope_scaling(file, a, c);
    // llama.cpp's converter writes one window for the whole model (Phi-3's sliding_window);
    // llama.cpp applies it to every layer, and so does the workbench.
    const std::string window = key("attention.sliding_window");
    if (file.has(window)) {
        const uint32_t w = file.get_u32(window);
        if (w > uint32_t(std::numeric_limits<int32_t>::max()))
            file.bad_metadata(window, std::to_string(w) + " does not fit a 32-bit position");
        if (w != 0) c.layer_window.assign(size_t(c.n_layers), int32_t(w));
    }
    return c;
}

std::string shape_text(const std::vector<uint64_t>& ne) {
    std::string s = "[";
    for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
    return s + "]";
}

// Reads weights by name, checking each shape, keeping every tensor in the source in the file's
// type (docs/ARCHITECTURE.md §5.1), and scanning every value for NaN/Inf.
class WeightReader {
public:
    explicit WeightReader(const GgufFile& file) : file_(file) {}

    // A matrix [rows][cols]: GGUF shape ne = [cols, rows].
    WeightTensor matrix(const std::string& name, int64_t rows, int64_t cols) {
        const GgufTensorInfo& t = require(name);
        ++matrix_types_[t.type];
        return read(t, {uint64_t(cols), uint64_t(rows)}, rows, cols);
    }
    // A vector [n], loaded as a [1][n] matrix.
    WeightTensor vector(const std::string& name, int64_t n) {
        return read(require(name), {uint64_t(n)}, 1, n);
    }
    // The embedding-like matrices whose row count is the vocabulary: a wrong count is a
    // vocabulary mismatch, not an arbitrary shape error.
    WeightTensor vocab_matrix(const std::string& name, int64_t vocab, int64_t n_embd) {
        const GgufTensorInfo& t = require(name);
        if (t.shape.size() == 2 && t.shape[0] == uint64_t(n_embd) && t.shape[1] != uint64_t(vocab))
            throw ModelError(ModelErrorKind::VocabMismatch, file_.file_name(),
                             "has " + std::to_string(t.shape[1]) + " rows, the tokenizer has " +
                                 std::to_string(vocab) + " tokens",
                             t.info_offset, t.name);
        return matrix(name, vocab, n_embd);
    }

    // The storage type most of the 2-D weights use, e.g. "Q4_K".
    std::string majority_matrix_type() const {
        auto best = matrix_types_.begin();
        for (auto it = matrix_types_.begin(); it != matrix_types_.end(); ++it)
            if (it->second > best->second) best = it;
        return best == matrix_types_.end() ? "none" : std::string(gguf_type_name(best->first));
    }

private:
    const GgufTensorInfo& require(const std::string& name) const {
        const GgufTensorInfo* t = file_.find_tensor(name);
        if (!t)
            throw ModelError(ModelErrorKind::MissingTensor, file_.file_name(),
                             "the model needs it and the file does not have it", std::nullopt,
                             name);
        return *t;
    }

    WeightTensor read(const GgufTensorInfo& t, const std::vector<uint64_t>& expected, int64_t rows,
                      int64_t cols) const {
        if (t.shape != expected)
            throw ModelError(ModelErrorKind::ShapeMismatch, file_.file_name(),
                             "expected ne = " + shape_text(expected) + " from the config, found " +
                                 shape_text(t.shape),
                             t.info_offset, t.name);
        WeightTensor w;
        w.name = t.name;
        w.rows = rows;
        w.cols = cols;
        const std::span<const uint8_t> bytes = file_.tensor_bytes(t);
        const uint64_t data_start = file_.data_offset() + t.offset;
        const GgufBlockLayout layout = gguf_block_layout(t.type);
        w.dtype = dtype_of(t.type);
        // Blocks are read byte by byte; a plain float tensor misaligned by an odd
        // general.alignment is copied so that it can be read as floats.
        const size_t align = dtype_is_quantized(w.dtype) ? 1 : dtype_size(w.dtype);
        if (reinterpret_cast<uintptr_t>(bytes.data()) % align == 0) {
            w.data = bytes.data();
            w.owner = file_.source();
        } else {
            auto buffer = std::make_shared<std::vector<float>>((bytes.size() + 3) / 4);
            std::memcpy(buffer->data(), bytes.data(), bytes.size());
            w.data = buffer->data();
            w.owner = buffer;
        }
        const int64_t bad = find_non_finite(w.dtype, w.data, size_t(rows) * size_t(cols));
        if (bad >= 0)
            throw ModelError(
                ModelErrorKind::NonFiniteWeight, file_.file_name(),
                "element " + std::to_string(bad) + " (row " + std::to_string(bad / cols) +
                    ", column " + std::to_string(bad % cols) + ") is NaN or Inf",
                data_start + uint64_t(bad) / layout.block_elems * layout.block_bytes, t.name);
        return w;
    }

    const GgufFile& file_;
    std::map<GgufType, int> matrix_types_;
};

// A tensor of per-pair frequency divisors, each a positive finite number.
std::vector<float> divisor_tensor(const GgufFile& file, WeightReader& reader,
                                  const std::string& name, int pairs) {
    const WeightTensor t = reader.vector(name, pairs);
    std::vector<float> out(static_cast<size_t>(pairs));
    weight_row_to_float(t, 0, out.data());
    for (const float d : out)
        if (!std::isfinite(d) || !(d > 0.0f))
            throw ModelError(
                ModelErrorKind::BadMetadata, file.file_name(),
                "a frequency divisor is " + std::to_string(d) + ", not a positive number",
                std::nullopt, name);
    return out;
}

// The scalings that live in tensors, as llama.cpp reads them. llama3: rope_freqs.weight, what
// each pair's frequency is divided by. LongRoPE (Phi-3-*-128k, Phi-3.5): rope_factors_short /
// _long.weight, the divisors up to and beyond ARCH.rope.scaling.original_context_length, and
// ARCH.rope.scaling.attn_factor, what cos and sin are multiplied by (1 when absent).
void read_frequency_divisors(const GgufFile& file, WeightReader& reader, ModelConfig& c) {
    const std::string prefix = c.architecture + ".";
    const int pairs = c.head_dim / 2;
    if (file.find_tensor("rope_freqs.weight")) {
        if (c.rope_scaling != RopeScaling::None)
            throw ModelError(ModelErrorKind::BadMetadata, file.file_name(),
                             "rope_freqs.weight together with " + prefix + "rope.scaling.type",
                             std::nullopt, "rope_freqs.weight");
        c.rope_freq_divisors = divisor_tensor(file, reader, "rope_freqs.weight", pairs);
        c.rope_scaling = RopeScaling::Llama3;
    }
    const char* long_name = "rope_factors_long.weight";
    const char* short_name = "rope_factors_short.weight";
    const bool factors = file.find_tensor(long_name) || file.find_tensor(short_name);
    if (!factors && c.rope_scaling != RopeScaling::LongRope) return;
    if (c.rope_scaling != RopeScaling::None && c.rope_scaling != RopeScaling::LongRope)
        throw ModelError(ModelErrorKind::BadMetadata, file.file_name(),
                         std::string("LongRoPE factors together with another RoPE scaling"),
                         std::nullopt, file.find_tensor(long_name) ? long_name : short_name);
    c.rope_scaling = RopeScaling::LongRope;
    c.rope_freq_divisors = divisor_tensor(file, reader, short_name, pairs);
    c.rope_long_divisors = divisor_tensor(file, reader, long_name, pairs);
    c.rope_original_context =
        positive_int(file, (prefix + "rope.scaling.original_context_length").c_str());
    c.rope_attention_factor =
        positive_finite(file, (prefix + "rope.scaling.attn_factor").c_str(), 1.0f);
}

}  // namespace

std::shared_ptr<Model> load_gguf_model(std::shared_ptr<const ByteSource> source) {
    const auto started = std::chrono::steady_clock::now();
    const GgufFile file(std::move(source));
    auto model = std::make_shared<Model>();
    model->files.push_back(file.source());
    ModelConfig& c = model->config;
    const Architecture& arch = require_architecture(file);
    Vocabulary vocab = read_gguf_vocabulary(file);
    c = read_config(file, arch, vocab.size());
    const std::string prefix = c.architecture + ".";

    const std::string vocab_key = prefix + "vocab_size";
    const uint32_t declared_vocab = file.get_u32(vocab_key, uint32_t(c.vocab_size));
    if (declared_vocab != uint32_t(c.vocab_size))
        throw ModelError(ModelErrorKind::VocabMismatch, file.file_name(),
                         vocab_key + " is " + std::to_string(declared_vocab) +
                             ", tokenizer.ggml.tokens has " + std::to_string(c.vocab_size) +
                             " tokens",
                         file.metadata_offset(vocab_key));

    std::vector<std::string> tensor_names;
    for (const GgufTensorInfo& t : file.tensors()) tensor_names.push_back(t.name);
    if (const auto extra = find_extra_layer(tensor_names, "blk.", c.n_layers))
        throw ModelError(ModelErrorKind::ShapeMismatch, file.file_name(),
                         "the file has layer " + std::to_string(extra->layer) + ", but " + prefix +
                             "block_count is " + std::to_string(c.n_layers),
                         file.find_tensor(extra->name)->info_offset, extra->name);

    WeightReader reader(file);
    read_frequency_divisors(file, reader, c);
    ModelWeights& w = model->weights;
    w.token_embd = reader.vocab_matrix("token_embd.weight", c.vocab_size, c.n_embd);
    w.output_norm = reader.vector("output_norm.weight", c.n_embd);
    // No output.weight means tied embeddings, as llama.cpp reads it.
    w.output = file.find_tensor("output.weight")
                   ? reader.vocab_matrix("output.weight", c.vocab_size, c.n_embd)
                   : w.token_embd;  // tied embeddings: same data, counted once
    w.layers.resize(size_t(c.n_layers));
    for (int i = 0; i < c.n_layers; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        LayerWeights& l = w.layers[size_t(i)];
        l.attn_norm = reader.vector(p + "attn_norm.weight", c.n_embd);
        if (arch.fused_qkv) {
            const WeightTensor qkv =
                reader.matrix(p + "attn_qkv.weight", c.q_dim() + 2 * c.kv_dim(), c.n_embd);
            l.wq = row_view(qkv, 0, c.q_dim());
            l.wk = row_view(qkv, c.q_dim(), c.kv_dim());
            l.wv = row_view(qkv, c.q_dim() + c.kv_dim(), c.kv_dim());
        } else {
            l.wq = reader.matrix(p + "attn_q.weight", c.q_dim(), c.n_embd);
            l.wk = reader.matrix(p + "attn_k.weight", c.kv_dim(), c.n_embd);
            l.wv = reader.matrix(p + "attn_v.weight", c.kv_dim(), c.n_embd);
        }
        if (c.qkv_bias) {
            l.bq = reader.vector(p + "attn_q.bias", c.q_dim());
            l.bk = reader.vector(p + "attn_k.bias", c.kv_dim());
            l.bv = reader.vector(p + "attn_v.bias", c.kv_dim());
        }
        if (c.qk_norm) {
            l.q_norm = reader.vector(p + "attn_q_norm.weight", c.head_dim);
            l.k_norm = reader.vector(p + "attn_k_norm.weight", c.head_dim);
        }
        l.wo = reader.matrix(p + "attn_output.weight", c.n_embd, c.q_dim());
        l.ffn_norm = reader.vector(p + "ffn_norm.weight", c.n_embd);
        if (arch.fused_gate_up) {
            // phi3's ffn_up holds gate and up, gate first.
            const WeightTensor gate_up = reader.matrix(p + "ffn_up.weight", 2 * c.n_ff, c.n_embd);
            l.w_gate = row_view(gate_up, 0, c.n_ff);
            l.w_up = row_view(gate_up, c.n_ff, c.n_ff);
        } else {
            l.w_gate = reader.matrix(p + "ffn_gate.weight", c.n_ff, c.n_embd);
            l.w_up = reader.matrix(p + "ffn_up.weight", c.n_ff, c.n_embd);
        }
        l.w_down = reader.matrix(p + "ffn_down.weight", c.n_embd, c.n_ff);
    }

    model->tokenizer = Tokenizer(std::move(vocab));
    model->source = file.file_name();
    model->file_type = "gguf " + reader.majority_matrix_type();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    spdlog::info(
        "loaded {} ({}): {} layers, n_embd {}, heads {}/{} kv, n_ff {}, vocab {}, "
        "{:.1f} MiB of weights in memory, {:.2f} s",
        model->source, model->file_type, c.n_layers, c.n_embd, c.n_heads, c.n_kv_heads, c.n_ff,
        c.vocab_size, double(w.total_bytes()) / (1024.0 * 1024.0), seconds);
    return model;
}

}  // namespace kvw
