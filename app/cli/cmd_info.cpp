// kvw info: what a model file holds — its configuration, every tensor, the vocabulary.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/chat/chat_prompt.h"
#include "core/model/layer_windows.h"
#include "core/model/model_loader.h"

namespace kvw::cli {
namespace {

const char* rope_layout_name(RopeLayout layout) {
    return layout == RopeLayout::Interleaved ? "interleaved (GGUF)" : "rotate-half (HF)";
}

// Every tensor as loaded, in the order the engine uses them; the output projection is left out
// when it is tied to the embedding (`tied` says so).
std::vector<const WeightTensor*> tensors_of(const ModelWeights& w, bool& tied) {
    std::vector<const WeightTensor*> out{&w.token_embd};
    for (const LayerWeights& l : w.layers)
        for (const WeightTensor* t : l.tensors()) out.push_back(t);
    out.push_back(&w.output_norm);
    tied = w.output.data == w.token_embd.data;
    if (!tied) out.push_back(&w.output);
    return out;
}

const char* rope_scaling_name(RopeScaling s) {
    switch (s) {
        case RopeScaling::None: return "none";
        case RopeScaling::Linear: return "linear";
        case RopeScaling::Llama3: return "llama3";
        case RopeScaling::LongRope: return "longrope";
    }
    return "none";
}

constexpr double kMiB = 1024.0 * 1024.0;

// Bytes the weights take in memory per storage type, only the types present, in DType order.
std::vector<std::pair<std::string, size_t>> bytes_by_type(const ModelWeights& w) {
    std::vector<std::pair<std::string, size_t>> out;
    const auto by = w.bytes_by_dtype();
    for (const DType d : kAllDTypes)
        if (by[size_t(d)] > 0) out.emplace_back(std::string(dtype_name(d)), by[size_t(d)]);
    return out;
}

nlohmann::json bytes_by_type_json(const ModelWeights& w) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [type, bytes] : bytes_by_type(w)) out[type] = bytes;
    return out;
}

nlohmann::json chat_template_json(const Vocabulary& v) {
    const ChatTemplateSupport support = chat_template_support(v);
    nlohmann::json out = {{"present", support.present}, {"usable", support.usable()}};
    if (support.present) out["bytes"] = support.bytes;
    if (support.problem) out["problem"] = *support.problem;
    return out;
}

nlohmann::json info_json(const Model& model) {
    const ModelConfig& c = model.config;
    const Vocabulary& v = model.tokenizer.vocabulary();
    bool tied = false;
    nlohmann::json tensors = nlohmann::json::array();
    for (const WeightTensor* t : tensors_of(model.weights, tied))
        tensors.push_back({{"name", t->name},
                           {"type", std::string(dtype_name(t->dtype))},
                           {"shape", {t->rows, t->cols}},
                           {"bytes", t->bytes()}});
    return {{"model", model.source},
            {"file_type", model.file_type},
            {"architecture", c.architecture},
            {"name", c.name},
            {"config",
             {{"layers", c.n_layers},
              {"hidden", c.n_embd},
              {"heads", c.n_heads},
              {"kv_heads", c.n_kv_heads},
              {"head_dim", c.head_dim},
              {"ffn", c.n_ff},
              {"vocab", c.vocab_size},
              {"context", c.max_context},
              {"rope_theta", c.rope_theta},
              {"rope_layout", rope_layout_name(c.rope_layout)},
              {"rope_scaling", rope_scaling_name(c.rope_scaling)},
              {"rope_scale_factor", c.rope_scale_factor},
              {"rope_original_context", c.rope_original_context},
              {"rope_attention_factor", c.rope_attention_factor},
              {"qkv_bias", c.qkv_bias},
              {"qk_norm", c.qk_norm},
              {"layer_window", c.layer_window},
              {"rms_eps", c.rms_eps}}},
            {"tokenizer",
             {{"pieces", v.size()},
              {"bos", v.bos_id},
              {"eos", v.eos_id},
              {"unk", v.unk_id},
              {"add_bos", v.add_bos}}},
            {"chat_template", chat_template_json(v)},
            {"tensors", tensors},
            {"output_tied_to_embedding", tied},
            {"weight_bytes", model.weights.total_bytes()},
            {"weight_bytes_by_type", bytes_by_type_json(model.weights)}};
}

void print_info(const Model& model) {
    const ModelConfig& c = model.config;
    std::printf("model        %s\n", model.source.c_str());
    std::printf("file type    %s\n", model.file_type.c_str());
    std::printf("architecture %s  %s\n", c.architecture.c_str(), c.name.c_str());
    std::printf("layers %d  hidden %d  heads %d  kv heads %d  head dim %d  ffn %d\n", c.n_layers,
                c.n_embd, c.n_heads, c.n_kv_heads, c.head_dim, c.n_ff);
    std::printf("vocab %d  context %d  rope theta %g (%s)  rms eps %g\n", c.vocab_size,
                c.max_context, double(c.rope_theta), rope_layout_name(c.rope_layout),
                double(c.rms_eps));
    if (c.rope_scaling == RopeScaling::LongRope)
        std::printf(
            "rope scaling longrope: short factors up to %d positions, long beyond; "
            "attention factor %g\n",
            c.rope_original_context, double(c.rope_attention_factor));
    else if (c.rope_scaling != RopeScaling::None)
        std::printf("rope scaling %s, factor %g\n", rope_scaling_name(c.rope_scaling),
                    double(c.rope_scale_factor));
    if (c.qkv_bias || c.qk_norm)
        std::printf("family       %s%s\n", c.qkv_bias ? "Q/K/V biases " : "",
                    c.qk_norm ? "Q/K RMSNorm" : "");
    if (!c.layer_window.empty())
        std::printf("sliding window %s\n", layer_windows_text(c.layer_window).c_str());
    const Vocabulary& v = model.tokenizer.vocabulary();
    std::printf("tokenizer    %d pieces, bos %d eos %d unk %d, add bos %s\n", v.size(), v.bos_id,
                v.eos_id, v.unk_id, v.add_bos ? "yes" : "no");
    std::printf("chat template %s\n", chat_template_support(v).describe().c_str());
    std::printf("tensors (as loaded):\n");
    bool tied = false;
    for (const WeightTensor* t : tensors_of(model.weights, tied))
        std::printf("  %-28s %-5s %6lld x %-6lld %10.2f MiB\n", t->name.c_str(),
                    std::string(dtype_name(t->dtype)).c_str(), static_cast<long long>(t->rows),
                    static_cast<long long>(t->cols), double(t->bytes()) / kMiB);
    if (tied)
        std::printf("  %-28s tied to %s\n", model.weights.output.name.c_str(),
                    model.weights.token_embd.name.c_str());
    std::printf("weights in memory: %.1f MiB (", double(model.weights.total_bytes()) / kMiB);
    const char* separator = "";
    for (const auto& [type, bytes] : bytes_by_type(model.weights)) {
        std::printf("%s%s %.1f MiB", separator, type.c_str(), double(bytes) / kMiB);
        separator = ", ";
    }
    std::printf(")\n");
}

// --backend NAME: where that backend computes (an accelerator's name and memory).
nlohmann::json backend_json(Backend& backend) {
    const BackendDevice d = backend.device();
    return {{"name", std::string(backend.name())},
            {"device", d.name},
            {"memory_total", d.memory_total},
            {"memory_used", d.memory_used}};
}

void print_backend(Backend& backend) {
    const BackendDevice d = backend.device();
    std::printf("backend      %s: %s", std::string(backend.name()).c_str(), d.name.c_str());
    if (d.memory_total > 0)
        std::printf(", %.1f of %.1f GiB in use", double(d.memory_used) / double(1ull << 30),
                    double(d.memory_total) / double(1ull << 30));
    std::printf("\n");
}

int run_info(const CliArgs& args) {
    if (args.positional().size() > 1) throw UsageError("info takes at most one model");
    const auto model =
        load_model(args.positional().empty() ? kDefaultModelSpec : args.positional()[0]);
    const std::unique_ptr<Backend> backend =
        args.has("backend") ? create_backend(args.get("backend")) : nullptr;
    if (args.has("json")) {
        nlohmann::json info = info_json(*model);
        if (backend) info["backend"] = backend_json(*backend);
        print_json(info);
    } else {
        print_info(*model);
        if (backend) print_backend(*backend);
    }
    return 0;
}

}  // namespace

CommandSpec info_command() {
    return {"info",
            "[SPEC]",
            std::string("a model's configuration, tensor table and vocabulary size (SPEC: see "
                        "--model of generate; default ") +
                kDefaultModelSpec + ")",
            {{"backend", "NAME", "", backend_option("").help + "; prints where it computes"},
             json_option()},
            run_info};
}

}  // namespace kvw::cli
