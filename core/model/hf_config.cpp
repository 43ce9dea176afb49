#include "core/model/hf_config.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/model_json.h"

namespace kvw {
namespace {

using nlohmann::json;

const json& require(const json& config, const char* key, const std::string& file) {
    if (!config.contains(key) || config[key].is_null())
        throw ModelError(ModelErrorKind::MissingMetadata, file, std::string("no \"") + key + "\"");
    return config[key];
}

int positive_int(const json& value, const char* key, const std::string& file) {
    if (!value.is_number_integer() || value.get<int64_t>() <= 0 ||
        value.get<int64_t>() > std::numeric_limits<int>::max())
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         std::string("\"") + key + "\" is not a positive integer: " +
                             value.dump());
    return value.get<int>();
}

int required_int(const json& config, const char* key, const std::string& file) {
    return positive_int(require(config, key, file), key, file);
}

int optional_int(const json& config, const char* key, int fallback, const std::string& file) {
    if (!config.contains(key) || config[key].is_null()) return fallback;
    return positive_int(config[key], key, file);
}

float optional_float(const json& config, const char* key, float fallback,
                     const std::string& file) {
    if (!config.contains(key) || config[key].is_null()) return fallback;
    const json& value = config[key];
    if (!value.is_number() || value.get<double>() <= 0.0)
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         std::string("\"") + key + "\" is not a positive number: " + value.dump());
    return value.get<float>();
}

bool is_llama(const json& config) {
    if (config.contains("architectures") && config["architectures"].is_array()) {
        const json& archs = config["architectures"];
        if (std::find(archs.begin(), archs.end(), json("LlamaForCausalLM")) != archs.end())
            return true;
    }
    return config.value("model_type", std::string()) == "llama";
}

}  // namespace

HfConfig parse_hf_config(std::string_view json_text, const std::string& file) {
    const json config = parse_model_json(json_text, file, ModelErrorKind::BadMetadata);
    if (!config.is_object())
        throw ModelError(ModelErrorKind::BadMetadata, file, "not a JSON object");
    if (!is_llama(config))
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         "not a Llama checkpoint (architectures " +
                             config.value("architectures", json::array()).dump() +
                             ", model_type " + config.value("model_type", json()).dump() +
                             "); only LlamaForCausalLM is supported");
    if (config.contains("rope_scaling") && !config["rope_scaling"].is_null())
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         "rope_scaling " + config["rope_scaling"].dump() + " is not supported");

    HfConfig out;
    ModelConfig& m = out.model;
    m.architecture = "llama";
    m.name = config.value("_name_or_path", std::string());
    m.n_embd = required_int(config, "hidden_size", file);
    m.n_layers = required_int(config, "num_hidden_layers", file);
    m.n_heads = required_int(config, "num_attention_heads", file);
    // HF's LlamaConfig defaults: no GQA, head_dim = hidden / heads, 2048 positions.
    m.n_kv_heads = optional_int(config, "num_key_value_heads", m.n_heads, file);
    m.n_ff = required_int(config, "intermediate_size", file);
    m.vocab_size = required_int(config, "vocab_size", file);
    m.max_context = optional_int(config, "max_position_embeddings", 2048, file);
    m.rope_theta = optional_float(config, "rope_theta", 10000.0f, file);
    m.rms_eps = optional_float(config, "rms_norm_eps", 1e-6f, file);
    m.rope_layout = RopeLayout::HalfSplit;

    if (m.n_heads % m.n_kv_heads != 0)
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         "num_attention_heads " + std::to_string(m.n_heads) +
                             " is not a multiple of num_key_value_heads " +
                             std::to_string(m.n_kv_heads));
    if (config.contains("head_dim") && !config["head_dim"].is_null()) {
        m.head_dim = positive_int(config["head_dim"], "head_dim", file);
    } else {
        if (m.n_embd % m.n_heads != 0)
            throw ModelError(ModelErrorKind::BadMetadata, file,
                             "hidden_size " + std::to_string(m.n_embd) +
                                 " is not a multiple of num_attention_heads " +
                                 std::to_string(m.n_heads));
        m.head_dim = m.n_embd / m.n_heads;
    }
    if (m.head_dim % 2 != 0)
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         "head_dim " + std::to_string(m.head_dim) + " is odd; RoPE needs pairs");

    const json tie = config.value("tie_word_embeddings", json(false));
    if (!tie.is_boolean())
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         "\"tie_word_embeddings\" is not a boolean: " + tie.dump());
    out.tie_word_embeddings = tie.get<bool>();
    return out;
}

HfConfig load_hf_config(const std::string& path) {
    const auto source = map_file(path);
    const auto bytes = source->bytes();
    return parse_hf_config(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

}  // namespace kvw
