#include "core/model/gguf_model_loader.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include <spdlog/spdlog.h>

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
void require_llama(const GgufFile& file) {
    const std::string& arch = file.get_string("general.architecture");
    if (arch != "llama")
        file.bad_metadata("general.architecture",
                          "is \"" + arch + "\"; only the \"llama\" architecture is supported");
}

// `vocab_size` is the tokenizer's: GGUF llama files need not say it among the llama.* keys.
ModelConfig read_config(const GgufFile& file, int vocab_size) {
    ModelConfig c;
    c.architecture = "llama";
    if (const GgufValue* name = file.find("general.name"))
        if (const std::string* s = std::get_if<std::string>(name)) c.name = *s;
    c.n_layers = positive_int(file, "llama.block_count");
    c.n_embd = positive_int(file, "llama.embedding_length");
    c.n_heads = positive_int(file, "llama.attention.head_count");
    c.n_kv_heads = file.has("llama.attention.head_count_kv")
                       ? positive_int(file, "llama.attention.head_count_kv")
                       : c.n_heads;
    c.n_ff = positive_int(file, "llama.feed_forward_length");
    c.max_context = positive_int(file, "llama.context_length");
    c.rope_theta = positive_finite(file, "llama.rope.freq_base", 10000.0f);
    c.rms_eps = positive_finite(file, "llama.attention.layer_norm_rms_epsilon", std::nullopt);
    c.rope_layout = RopeLayout::Interleaved;  // llama.cpp's converter permutes Q and K for it
    c.vocab_size = vocab_size;
    // Absurd sizes first: the consistency checks below would otherwise blame another key.
    static constexpr ModelShapeKeys keys = {
        "llama.block_count",          "llama.embedding_length",
        "llama.attention.head_count", "llama.attention.head_count_kv",
        "llama.embedding_length",     "llama.feed_forward_length",
        "tokenizer.ggml.tokens",      "llama.context_length"};
    c.head_dim = c.n_embd / c.n_heads;
    if (const auto fault = find_shape_fault(c, keys)) file.bad_metadata(fault->key, fault->why);

    if (c.n_embd % c.n_heads != 0)
        file.bad_metadata("llama.attention.head_count",
                          std::to_string(c.n_heads) + " heads do not divide embedding_length " +
                              std::to_string(c.n_embd));
    if (c.head_dim % 2 != 0)
        file.bad_metadata(
            "llama.attention.head_count",
            "head dimension " + std::to_string(c.head_dim) + " is odd; RoPE rotates pairs");
    if (c.n_heads % c.n_kv_heads != 0)
        file.bad_metadata("llama.attention.head_count_kv",
                          std::to_string(c.n_kv_heads) + " KV heads do not divide " +
                              std::to_string(c.n_heads) + " query heads");
    if (file.has("llama.rope.dimension_count") &&
        file.get_u32("llama.rope.dimension_count") != uint32_t(c.head_dim))
        file.bad_metadata("llama.rope.dimension_count",
                          "is " + std::to_string(file.get_u32("llama.rope.dimension_count")) +
                              ", the head dimension is " + std::to_string(c.head_dim) +
                              " (partial RoPE is not supported)");
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

}  // namespace

std::shared_ptr<Model> load_gguf_model(std::shared_ptr<const ByteSource> source) {
    const auto started = std::chrono::steady_clock::now();
    const GgufFile file(std::move(source));
    auto model = std::make_shared<Model>();
    model->files.push_back(file.source());
    ModelConfig& c = model->config;
    require_llama(file);
    Vocabulary vocab = read_gguf_vocabulary(file);
    c = read_config(file, vocab.size());

    const uint32_t declared_vocab = file.get_u32("llama.vocab_size", uint32_t(c.vocab_size));
    if (declared_vocab != uint32_t(c.vocab_size))
        throw ModelError(ModelErrorKind::VocabMismatch, file.file_name(),
                         "llama.vocab_size is " + std::to_string(declared_vocab) +
                             ", tokenizer.ggml.tokens has " + std::to_string(c.vocab_size) +
                             " tokens",
                         file.metadata_offset("llama.vocab_size"));

    std::vector<std::string> tensor_names;
    for (const GgufTensorInfo& t : file.tensors()) tensor_names.push_back(t.name);
    if (const auto extra = find_extra_layer(tensor_names, "blk.", c.n_layers))
        throw ModelError(ModelErrorKind::ShapeMismatch, file.file_name(),
                         "the file has layer " + std::to_string(extra->layer) +
                             ", but llama.block_count is " + std::to_string(c.n_layers),
                         file.find_tensor(extra->name)->info_offset, extra->name);

    WeightReader reader(file);
    ModelWeights& w = model->weights;
    w.token_embd = reader.vocab_matrix("token_embd.weight", c.vocab_size, c.n_embd);
    w.output_norm = reader.vector("output_norm.weight", c.n_embd);
    w.output = file.find_tensor("output.weight")
                   ? reader.vocab_matrix("output.weight", c.vocab_size, c.n_embd)
                   : w.token_embd;  // tied embeddings: same data, counted once
    w.layers.resize(size_t(c.n_layers));
    for (int i = 0; i < c.n_layers; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        LayerWeights& l = w.layers[size_t(i)];
        l.attn_norm = reader.vector(p + "attn_norm.weight", c.n_embd);
        l.wq = reader.matrix(p + "attn_q.weight", c.q_dim(), c.n_embd);
        l.wk = reader.matrix(p + "attn_k.weight", c.kv_dim(), c.n_embd);
        l.wv = reader.matrix(p + "attn_v.weight", c.kv_dim(), c.n_embd);
        l.wo = reader.matrix(p + "attn_output.weight", c.n_embd, c.q_dim());
        l.ffn_norm = reader.vector(p + "ffn_norm.weight", c.n_embd);
        l.w_gate = reader.matrix(p + "ffn_gate.weight", c.n_ff, c.n_embd);
        l.w_up = reader.matrix(p + "ffn_up.weight", c.n_ff, c.n_embd);
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
