#include "core/model/hf_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/model/architecture.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/model_json.h"
#include "core/model/model_shape.h"

namespace kvw {
namespace {

using nlohmann::json;

[[noreturn]] void bad_config(const std::string& file, const std::string& detail) {
    throw ModelError(ModelErrorKind::BadMetadata, file, detail);
}

int positive_int(const JsonFields& config, const char* key, std::optional<int> fallback,
                 const std::string& file) {
    const int64_t v = fallback ? config.get_or<int64_t>(key, *fallback) : config.get<int64_t>(key);
    if (v <= 0 || v > std::numeric_limits<int>::max())
        bad_config(file, std::string("\"") + key + "\" is " + std::to_string(v) +
                             ", not a positive 32-bit integer");
    return int(v);
}

float positive_float(const JsonFields& config, const char* key, float fallback,
                     const std::string& file) {
    const float v = config.get_or<float>(key, fallback);
    if (!(v > 0.0f))  // also a value so small that it rounds to 0 in float
        bad_config(file, std::string("\"") + key + "\" is " + std::to_string(v) +
                             ", not a positive number");
    return v;
}

// The table's row for this config: the first of "architectures" the table knows, or, without
// that key, a model_type that is a row's name (or "mistral").
const Architecture& find_architecture(const JsonFields& config, const std::string& file) {
    const std::string model_type = config.get_or<std::string>("model_type", "");
    if (config.has("architectures")) {
        for (const json& entry : config.array("architectures"))
            if (entry.is_string())
                if (const Architecture* a = find_hf_architecture(entry.get<std::string>()))
                    return *a;
    } else if (const Architecture* a =
                   find_gguf_architecture(model_type == "mistral" ? "llama" : model_type)) {
        return *a;
    }
    bad_config(file, "architectures " +
                         (config.has("architectures") ? config.at("architectures").dump()
                                                      : std::string("absent")) +
                         ", model_type \"" + model_type + "\" is not supported; the supported " +
                         "architectures are " + supported_hf_architectures());
}

// What the one forward pass cannot run is refused by name, never ignored.
void refuse_unsupported(const JsonFields& config, const Architecture& arch,
                        const std::string& file) {
    const std::string act = config.get_or<std::string>("hidden_act", "silu");
    if (act != "silu")
        bad_config(file, "\"hidden_act\" is \"" + act + "\"; only \"silu\" (SwiGLU) is supported");
    if (!arch.qkv_bias && config.get_or<bool>("attention_bias", false))
        bad_config(file, "\"attention_bias\" true is not supported for " + std::string(arch.name));
    if (config.get_or<bool>("mlp_bias", false))
        bad_config(file, "\"mlp_bias\" true is not supported");
    if (config.has("partial_rotary_factor") && config.get<double>("partial_rotary_factor") != 1.0)
        bad_config(file, "\"partial_rotary_factor\" " + config.at("partial_rotary_factor").dump() +
                             ": partial RoPE is not supported");
}

// Which layers attend through a sliding window, as transformers decides: Qwen2 / Qwen3 declare
// a window that applies only with use_sliding_window, and then to the layers from
// max_window_layers on; Mistral and Phi-3 apply sliding_window to every layer whenever it is
// set; a "layer_types" list ("full_attention" / "sliding_attention") names each layer itself.
void read_sliding_window(const JsonFields& config, ModelConfig& m, const std::string& file) {
    const bool qwen_style = config.has("use_sliding_window");
    const bool declared = config.has("sliding_window") && !config.at("sliding_window").is_null();
    const bool windowed = qwen_style ? config.get_or<bool>("use_sliding_window", false) : declared;
    if (!windowed) {
        if (config.has("layer_types"))
            for (const json& t : config.array("layer_types"))
                if (t == "sliding_attention")
                    bad_config(file,
                               "\"layer_types\" names a sliding_attention layer, but no "
                               "\"sliding_window\" applies");
        return;
    }
    if (!declared)
        bad_config(file, "\"use_sliding_window\" is true but \"sliding_window\" is missing");
    const int window = positive_int(config, "sliding_window", std::nullopt, file);
    m.layer_window.assign(size_t(m.n_layers), window);
    if (config.has("layer_types")) {
        const json& types = config.array("layer_types");
        if (types.size() != size_t(m.n_layers))
            bad_config(file, "\"layer_types\" has " + std::to_string(types.size()) +
                                 " entries for " + std::to_string(m.n_layers) + " layers");
        for (size_t l = 0; l < types.size(); ++l) {
            if (types[l] == "full_attention") {
                m.layer_window[l] = 0;
            } else if (types[l] != "sliding_attention") {
                bad_config(file,
                           "\"layer_types\"[" + std::to_string(l) + "] is " + types[l].dump() +
                               "; only \"full_attention\" and \"sliding_attention\" are supported");
            }
        }
    } else if (qwen_style && config.has("max_window_layers")) {
        const int64_t first = config.get<int64_t>("max_window_layers");
        for (int64_t l = 0; l < std::min<int64_t>(first, m.n_layers); ++l)
            m.layer_window[size_t(l)] = 0;
    }
    if (std::all_of(m.layer_window.begin(), m.layer_window.end(), [](int32_t w) { return w == 0; }))
        m.layer_window.clear();
}

double positive_finite(const JsonFields& fields, const char* key, const std::string& file) {
    const double v = fields.get<double>(key);
    if (!std::isfinite(v) || !(v > 0.0))
        bad_config(file,
                   fields.path_of(key) + " is " + std::to_string(v) + ", not a positive number");
    return v;
}

// One LongRoPE factor list: a positive divisor per pair of a head.
std::vector<float> longrope_factors(const JsonFields& s, const char* key, int head_dim,
                                    const std::string& file) {
    const json& list = s.array(key);
    if (list.size() != size_t(head_dim / 2))
        bad_config(file, s.path_of(key) + " has " + std::to_string(list.size()) +
                             " factors; a head of " + std::to_string(head_dim) + " needs " +
                             std::to_string(head_dim / 2));
    std::vector<float> out;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string path = s.path_of(key) + "[" + std::to_string(i) + "]";
        const double f = json_as<double>(list[i], path);
        if (!std::isfinite(f) || !(f > 0.0) || !(float(f) > 0.0f))
            bad_config(file, path + " is " + std::to_string(f) + ", not a positive number");
        out.push_back(float(f));
    }
    return out;
}

// LongRoPE (Phi-3-*-128k, Phi-3.5; "su" in the first Phi-3 files), as transformers'
// _compute_longrope_parameters reads it: short and long factors divide each pair's frequency,
// and cos / sin are multiplied by an attention factor, by default sqrt(1 + ln f / ln original)
// where f is how much longer the context is than the pretrained one.
void read_longrope(const JsonFields& config, const JsonFields& s, ModelConfig& m,
                   const std::string& file) {
    m.rope_scaling = RopeScaling::LongRope;
    m.rope_freq_divisors = longrope_factors(s, "short_factor", m.head_dim, file);
    m.rope_long_divisors = longrope_factors(s, "long_factor", m.head_dim, file);
    double factor = 1.0;
    if (config.has("original_max_position_embeddings")) {
        // Phi-3 keeps the pretrained context beside the extended one and scales by their ratio.
        m.rope_original_context =
            positive_int(config, "original_max_position_embeddings", std::nullopt, file);
        factor = double(m.max_context) / double(m.rope_original_context);
    } else {
        // Without it the declared factor sets the attention factor, and no context is long.
        m.rope_original_context =
            positive_int(s, "original_max_position_embeddings", m.max_context, file);
        if (s.has("factor")) factor = positive_finite(s, "factor", file);
    }
    if (s.has("attention_factor"))
        m.rope_attention_factor = float(positive_finite(s, "attention_factor", file));
    else if (factor > 1.0)
        m.rope_attention_factor =
            float(std::sqrt(1.0 + std::log(factor) / std::log(double(m.rope_original_context))));
}

// rope_scaling: null, {"rope_type" (or the older "type"): "default" | "linear" | "llama3" |
// "longrope", ...}. llama3's per-pair divisors are computed here as transformers computes its
// frequencies; YaRN, dynamic NTK and anything else are refused by name.
void read_rope_scaling(const JsonFields& config, ModelConfig& m, const std::string& file) {
    if (!config.has("rope_scaling")) return;
    const JsonFields s = config.object("rope_scaling");
    const std::string type =
        s.has("rope_type") ? s.get<std::string>("rope_type") : s.get_or<std::string>("type", "");
    if (type == "default") return;
    if (type == "longrope" || type == "su") return read_longrope(config, s, m, file);
    if (type != "linear" && type != "llama3")
        bad_config(file, "rope_scaling " + config.at("rope_scaling").dump() + ": type \"" + type +
                             "\" is not supported; the supported types are linear, llama3 and "
                             "longrope");
    const double factor = positive_finite(s, "factor", file);
    m.rope_scale_factor = float(factor);
    if (type == "linear") {
        m.rope_scaling = RopeScaling::Linear;
        return;
    }
    const double low = positive_finite(s, "low_freq_factor", file);
    const double high = positive_finite(s, "high_freq_factor", file);
    const double original = positive_finite(s, "original_max_position_embeddings", file);
    if (!(high > low))
        bad_config(file, "rope_scaling: high_freq_factor " + std::to_string(high) +
                             " is not above low_freq_factor " + std::to_string(low));
    m.rope_scaling = RopeScaling::Llama3;
    m.rope_freq_divisors.resize(size_t(m.head_dim / 2));
    for (int i = 0; i < m.head_dim / 2; ++i)
        m.rope_freq_divisors[size_t(i)] =
            float(llama3_freq_divisor(i, m.head_dim, m.rope_theta, factor, low, high, original));
}

HfConfig read_config(const JsonFields& config, const std::string& file) {
    const Architecture& arch = find_architecture(config, file);

    HfConfig out;
    ModelConfig& m = out.model;
    m.architecture = std::string(arch.name);
    m.qkv_bias = arch.qkv_bias;
    m.qk_norm = arch.qk_norm;
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
    // transformers' defaults: 1e-6, Phi3Config's 1e-5.
    m.rms_eps = positive_float(config, "rms_norm_eps", arch.name == "phi3" ? 1e-5f : 1e-6f, file);
    m.rope_layout = RopeLayout::HalfSplit;

    if (m.n_heads % m.n_kv_heads != 0)
        bad_config(file, "num_attention_heads " + std::to_string(m.n_heads) +
                             " is not a multiple of num_key_value_heads " +
                             std::to_string(m.n_kv_heads));
    if (config.has("head_dim")) {
        m.head_dim = positive_int(config, "head_dim", std::nullopt, file);
    } else {
        if (m.n_embd % m.n_heads != 0)
            bad_config(file, "hidden_size " + std::to_string(m.n_embd) +
                                 " is not a multiple of num_attention_heads " +
                                 std::to_string(m.n_heads));
        m.head_dim = m.n_embd / m.n_heads;
    }
    if (m.head_dim % 2 != 0)
        bad_config(file, "head_dim " + std::to_string(m.head_dim) + " is odd; RoPE needs pairs");
    static constexpr ModelShapeKeys keys = {
        "num_hidden_layers", "hidden_size",       "num_attention_heads", "num_key_value_heads",
        "head_dim",          "intermediate_size", "vocab_size",          "max_position_embeddings"};
    if (const auto fault = find_shape_fault(m, keys))
        bad_config(file, "\"" + fault->key + "\": " + fault->why);
    refuse_unsupported(config, arch, file);
    read_sliding_window(config, m, file);
    read_rope_scaling(config, m, file);
    out.arch = &arch;
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
