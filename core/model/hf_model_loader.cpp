#include "core/model/hf_model_loader.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "core/model/architecture.h"
#include "core/model/extra_layers.h"
#include "core/model/hf_config.h"
#include "core/model/hf_tokenizer_json.h"
#include "core/model/model_error.h"
#include "core/model/model_json.h"
#include "core/model/safetensors_file.h"
#include "core/model/weight_scan.h"

namespace kvw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// The safetensors files of a folder and which one holds each tensor.
class TensorSource {
public:
    explicit TensorSource(const fs::path& folder) {
        const fs::path single = folder / "model.safetensors";
        const fs::path index = folder / "model.safetensors.index.json";
        if (fs::exists(single)) {
            listing_ = single.string();
            files_.emplace(single.string(), SafetensorsFile::open(single.string()));
            for (const SafetensorsTensor& t : files_.begin()->second.tensors())
                where_[t.name] = single.string();
        } else if (fs::exists(index)) {
            listing_ = index.string();
            read_index(folder, index.string());
        } else {
            throw ModelError(ModelErrorKind::CannotOpen, folder.string(),
                             "neither model.safetensors nor model.safetensors.index.json");
        }
    }

    // The tensor and the file that holds it; MissingTensor when absent.
    std::pair<const SafetensorsFile*, const SafetensorsTensor*> get(const std::string& name) const {
        const auto it = where_.find(name);
        if (it == where_.end())
            throw ModelError(ModelErrorKind::MissingTensor, listing_, "not listed", std::nullopt,
                             name);
        const SafetensorsFile& file = files_.at(it->second);
        const SafetensorsTensor* t = file.find(name);
        if (!t)
            throw ModelError(ModelErrorKind::MissingTensor, it->second,
                             "listed in " + listing_ + " but not in this shard", std::nullopt,
                             name);
        return {&file, t};
    }
    // The shards' bytes, for Model::files.
    std::vector<std::shared_ptr<const ByteSource>> sources() const {
        std::vector<std::shared_ptr<const ByteSource>> out;
        for (const auto& [path, file] : files_) out.push_back(file.source());
        return out;
    }
    // Every listed tensor name, in name order.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& [name, path] : where_) out.push_back(name);
        return out;
    }

private:
    void read_index(const fs::path& folder, const std::string& index_path) {
        const auto source = map_file(index_path);
        const auto bytes = source->bytes();
        const json index = parse_model_json(
            std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), index_path,
            ModelErrorKind::BadMetadata);
        if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
            throw ModelError(ModelErrorKind::MissingMetadata, index_path, "no \"weight_map\"");
        for (const auto& [tensor, shard] : index["weight_map"].items()) {
            if (!shard.is_string() || shard.get<std::string>().empty() ||
                fs::path(shard.get<std::string>()).has_parent_path())
                throw ModelError(ModelErrorKind::BadMetadata, index_path,
                                 "shard " + shard.dump() + " is not a file name in the folder",
                                 std::nullopt, tensor);
            const std::string path = (folder / shard.get<std::string>()).string();
            if (!files_.count(path)) files_.emplace(path, SafetensorsFile::open(path));
            where_[tensor] = path;
        }
    }

    std::string listing_;  // the file that says where tensors are (for errors)
    std::map<std::string, SafetensorsFile> files_;  // by path, each mapped once
    std::map<std::string, std::string> where_;      // tensor name -> path
};

class WeightReader {
public:
    explicit WeightReader(const TensorSource& source) : source_(source) {}

    // A [rows][cols] matrix; a 1-D tensor of `cols` elements when rows == 0 (norm weights,
    // returned as [1][cols]).
    WeightTensor read(const std::string& name, int64_t rows, int64_t cols) {
        const auto [file, t] = source_.get(name);
        const std::vector<int64_t> expected =
            rows == 0 ? std::vector<int64_t>{cols} : std::vector<int64_t>{rows, cols};
        if (t->shape != expected)
            throw ModelError(ModelErrorKind::ShapeMismatch, file->path(),
                             "expected " + shape_text(expected) + " from config.json, found " +
                                 shape_text(t->shape),
                             t->offset, name);
        return make(*file, *t, rows == 0 ? 1 : rows, cols);
    }

    // The embedding: its row count is checked against the vocabulary by the caller.
    WeightTensor read_rows(const std::string& name, int64_t cols) {
        const auto [file, t] = source_.get(name);
        if (t->shape.size() != 2 || t->shape[1] != cols)
            throw ModelError(
                ModelErrorKind::ShapeMismatch, file->path(),
                "expected [vocab, " + std::to_string(cols) + "], found " + shape_text(t->shape),
                t->offset, name);
        return make(*file, *t, t->shape[0], cols);
    }

    const std::set<DType>& dtypes() const { return dtypes_; }

private:
    WeightTensor make(const SafetensorsFile& file, const SafetensorsTensor& t, int64_t rows,
                      int64_t cols) {
        WeightTensor w;
        w.name = t.name;
        w.dtype = t.dtype;
        w.rows = rows;
        w.cols = cols;
        const std::span<const uint8_t> bytes = file.data(t);
        const int64_t bad = find_non_finite(t.dtype, bytes.data(), size_t(rows * cols));
        if (bad >= 0)
            throw ModelError(ModelErrorKind::NonFiniteWeight, file.path(),
                             "element " + std::to_string(bad) + " (row " +
                                 std::to_string(bad / cols) + ", column " +
                                 std::to_string(bad % cols) + ") is NaN or Inf",
                             t.offset + uint64_t(bad) * dtype_size(t.dtype), t.name);
        // safetensors only promises the offsets the writer chose; the mapping itself is
        // page-aligned, so the address is misaligned only when the offset is.
        if (reinterpret_cast<uintptr_t>(bytes.data()) % dtype_size(t.dtype) == 0) {
            w.data = bytes.data();
            w.owner = file.source();
        } else {
            auto copy = std::make_shared<std::vector<float>>((bytes.size() + 3) / 4);
            std::memcpy(copy->data(), bytes.data(), bytes.size());
            w.data = copy->data();
            w.owner = copy;
        }
        dtypes_.insert(t.dtype);
        return w;
    }

    const TensorSource& source_;
    std::set<DType> dtypes_;
};

// A tokenizer with fewer tokens than vocab_size (Qwen's config pads it, and the embedding with
// it, to a multiple of 128) gets the ids past its end as unused "[PAD<id>]" pieces, as
// llama.cpp's converter writes them into the GGUF, so a folder and its GGUF agree on every id.
// Unused pieces are never produced by encoding (the codecs split them back or have no merge
// making them); the model may still sample one, and it decodes as its piece text.
void pad_vocabulary(Vocabulary& vocab, int config_vocab) {
    for (int id = vocab.size(); id < config_vocab; ++id) {
        vocab.pieces.push_back("[PAD" + std::to_string(id) + "]");
        vocab.scores.push_back(0.0f);
        vocab.types.push_back(TokenType::Unused);
    }
}

void check_vocab(int config_vocab, int tokenizer_size, const WeightTensor& embd,
                 const fs::path& folder, const std::string& embd_file) {
    if (tokenizer_size > config_vocab)
        throw ModelError(ModelErrorKind::VocabMismatch, (folder / "tokenizer.json").string(),
                         "tokenizer has " + std::to_string(tokenizer_size) +
                             " tokens, more than config.json's vocab_size " +
                             std::to_string(config_vocab));
    if (embd.rows != config_vocab)
        throw ModelError(ModelErrorKind::VocabMismatch, embd_file,
                         "embedding has " + std::to_string(embd.rows) +
                             " rows, config.json vocab_size is " + std::to_string(config_vocab),
                         std::nullopt, embd.name);
}

// Layers beyond num_hidden_layers are a ShapeMismatch naming a tensor of the deepest one.
void check_no_extra_layers(const TensorSource& source, int n_layers,
                           const std::string& config_file) {
    const auto extra = find_extra_layer(source.names(), "model.layers.", n_layers);
    if (!extra) return;
    throw ModelError(ModelErrorKind::ShapeMismatch, source.get(extra->name).first->path(),
                     "the checkpoint has layer " + std::to_string(extra->layer) + ", but " +
                         config_file + " says num_hidden_layers is " + std::to_string(n_layers),
                     std::nullopt, extra->name);
}

}  // namespace

std::shared_ptr<Model> load_hf_model(const std::string& folder_name) {
    const fs::path folder(folder_name);
    const HfConfig hf = load_hf_config((folder / "config.json").string());
    const ModelConfig& c = hf.model;
    Vocabulary vocab = load_hf_tokenizer(folder.string());

    const TensorSource source(folder);
    check_no_extra_layers(source, c.n_layers, (folder / "config.json").string());
    WeightReader reader(source);
    auto model = std::make_shared<Model>();
    model->files = source.sources();
    model->config = c;
    if (model->config.name.empty()) model->config.name = folder.filename().string();
    model->source = folder.string();

    ModelWeights& w = model->weights;
    w.token_embd = reader.read_rows("model.embed_tokens.weight", c.n_embd);
    check_vocab(c.vocab_size, vocab.size(), w.token_embd, folder,
                source.get("model.embed_tokens.weight").first->path());
    pad_vocabulary(vocab, c.vocab_size);
    w.output_norm = reader.read("model.norm.weight", 0, c.n_embd);
    // HF ignores a saved lm_head when the embeddings are tied; untied, it must be there
    // (reading it throws MissingTensor), or the model would silently run another head.
    w.output = hf.tie_word_embeddings ? w.token_embd
                                      : reader.read("lm_head.weight", c.vocab_size, c.n_embd);

    w.layers.resize(size_t(c.n_layers));
    for (int i = 0; i < c.n_layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        LayerWeights& l = w.layers[size_t(i)];
        l.attn_norm = reader.read(p + "input_layernorm.weight", 0, c.n_embd);
        const std::string a = p + "self_attn.", f = p + "mlp.";
        if (hf.arch->fused_qkv) {
            const WeightTensor qkv =
                reader.read(a + "qkv_proj.weight", c.q_dim() + 2 * c.kv_dim(), c.n_embd);
            l.wq = row_view(qkv, 0, c.q_dim());
            l.wk = row_view(qkv, c.q_dim(), c.kv_dim());
            l.wv = row_view(qkv, c.q_dim() + c.kv_dim(), c.kv_dim());
        } else {
            l.wq = reader.read(a + "q_proj.weight", c.q_dim(), c.n_embd);
            l.wk = reader.read(a + "k_proj.weight", c.kv_dim(), c.n_embd);
            l.wv = reader.read(a + "v_proj.weight", c.kv_dim(), c.n_embd);
        }
        if (c.qkv_bias) {
            l.bq = reader.read(a + "q_proj.bias", 0, c.q_dim());
            l.bk = reader.read(a + "k_proj.bias", 0, c.kv_dim());
            l.bv = reader.read(a + "v_proj.bias", 0, c.kv_dim());
        }
        if (c.qk_norm) {
            l.q_norm = reader.read(a + "q_norm.weight", 0, c.head_dim);
            l.k_norm = reader.read(a + "k_norm.weight", 0, c.head_dim);
        }
        l.wo = reader.read(a + "o_proj.weight", c.n_embd, c.q_dim());
        l.ffn_norm = reader.read(p + "post_attention_layernorm.weight", 0, c.n_embd);
        if (hf.arch->fused_gate_up) {
            // Phi-3's gate_up_proj: gate rows first, then up.
            const WeightTensor gate_up =
                reader.read(f + "gate_up_proj.weight", 2 * c.n_ff, c.n_embd);
            l.w_gate = row_view(gate_up, 0, c.n_ff);
            l.w_up = row_view(gate_up, c.n_ff, c.n_ff);
        } else {
            l.w_gate = reader.read(f + "gate_proj.weight", c.n_ff, c.n_embd);
            l.w_up = reader.read(f + "up_proj.weight", c.n_ff, c.n_embd);
        }
        l.w_down = reader.read(f + "down_proj.weight", c.n_embd, c.n_ff);
    }

    model->file_type = "safetensors ";
    bool first = true;
    for (DType d : reader.dtypes()) {
        model->file_type += std::string(first ? "" : "+") + std::string(dtype_name(d));
        first = false;
    }
    model->tokenizer = Tokenizer(std::move(vocab));
    spdlog::info("loaded {} ({}): {} layers, n_embd {}, heads {}/{} kv, n_ff {}, vocab {}",
                 model->source, model->file_type, c.n_layers, c.n_embd, c.n_heads, c.n_kv_heads,
                 c.n_ff, c.vocab_size);
    return model;
}

}  // namespace kvw
