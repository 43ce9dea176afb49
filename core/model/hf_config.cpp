#include "core/model/hf_config.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/model_json.h"
#include "core/model/model_shape.h"

namespace kvw {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& file, const std::string& detail) {
    throw ModelError(ModelErrorKind::BadMetadata, file, detail);
}

int positive_int(const JsonFields& config, const char* key, std::optional<int> fallback,
                 const std::string& file) {
    const int64_t v = fallback ? config.get_or<int64_t>(key, *fallback) : config.get<int64_t>(key);
    if (v <= 0 || v > std::numeric_limits<int>::max())
        bad(file, std::string("\"") + key + "\" is " + std::to_string(v) +
                      ", not a positive 32-bit integer");
    return int(v);
}

float positive_float(const JsonFields& config, const char* key, float fallback,
                     const std::string& file) {
    const float v = config.get_or<float>(key, fallback);
    if (!(v > 0.0f))  // also a value so small that it rounds to 0 in float
        bad(file,
            std::string("\"") + key + "\" is " + std::to_string(v) + ", not a positive number");
    return v;
}

bool is_llama(const JsonFields& config) {
    if (config.has("architectures")) {
        const json& archs = config.array("architectures");
        if (std::find(archs.begin(), archs.end(), json("LlamaForCausalLM")) != archs.end())
            return true;
    }
    return config.get_or<std::string>("model_type", "") == "llama";
}

HfConfig read_config(const JsonFields& config, const std::string& file) {
    if (!is_llama(config))
        bad(file, "not a Llama checkpoint (architectures " +
                      (config.has("architectures") ? config.at("architectures").dump()
                                                   : std::string("absent")) +
                      ", model_type \"" + config.get_or<std::string>("model_type", "") +
                      "\"); only LlamaForCausalLM is supported");
    if (config.has("rope_scaling"))
        bad(file, "rope_scaling " + config.at("rope_scaling").dump() + " is not supported");

    HfConfig out;
    ModelConfig& m = out.model;
    m.architecture = "llama";
    m.name = config.get_or<std::string>("_name_or_path", "");
    m.n_embd = positive_int(config, "hidden_size", std::nullopt, file);
    m.n_layers = positive_int(config, "num_hidden_layers", std::nullopt, file);
    m.n_heads = positive_int(config, "num_attention_heads", std::nullopt, file);
    // HF's LlamaConfig defaults: no GQA, head_dim = hidden / heads, 2048 positions.
    m.n_kv_heads = positive_int(config, "num_key_value_heads", m.n_heads, file);
    m.n_ff = positive_int(config, "intermediate_size", std::nullopt, file);
    m.vocab_size = positive_int(config, "vocab_size", std::nullopt, file);
    m.max_context = positive_int(config, "max_position_embeddings", 2048, file);
    m.rope_theta = positive_float(config, "rope_theta", 10000.0f, file);
    m.rms_eps = positive_float(config, "rms_norm_eps", 1e-6f, file);
    m.rope_layout = RopeLayout::HalfSplit;

    if (m.n_heads % m.n_kv_heads != 0)
        bad(file, "num_attention_heads " + std::to_string(m.n_heads) +
                      " is not a multiple of num_key_value_heads " + std::to_string(m.n_kv_heads));
    if (config.has("head_dim")) {
        m.head_dim = positive_int(config, "head_dim", std::nullopt, file);
    } else {
        if (m.n_embd % m.n_heads != 0)
            bad(file, "hidden_size " + std::to_string(m.n_embd) +
                          " is not a multiple of num_attention_heads " + std::to_string(m.n_heads));
        m.head_dim = m.n_embd / m.n_heads;
    }
    if (m.head_dim % 2 != 0)
        bad(file, "head_dim " + std::to_string(m.head_dim) + " is odd; RoPE needs pairs");
    static constexpr ModelShapeKeys keys = {
        "num_hidden_layers", "hidden_size",       "num_attention_heads", "num_key_value_heads",
        "head_dim",          "intermediate_size", "vocab_size",          "max_position_embeddings"};
    if (const auto fault = find_shape_fault(m, keys))
        bad(file, "\"" + fault->key + "\": " + fault->why);
    out.tie_word_embeddings = config.get_or<bool>("tie_word_embeddings", false);
    return out;
}

}  // namespace

HfConfig parse_hf_config(std::string_view json_text, const std::string& file) {
    const json config = parse_model_json(json_text, file, ModelErrorKind::BadMetadata);
    try {
        return read_config(JsonFields(config), file);
    } catch (const JsonError& e) {
        throw model_error_from(e, file, ModelErrorKind::BadMetadata);
    }
}

HfConfig load_hf_config(const std::string& path) {
    const auto source = map_file(path);
    const auto bytes = source->bytes();
    return parse_hf_config(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

}  // namespace kvw
