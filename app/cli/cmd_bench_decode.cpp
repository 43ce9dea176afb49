// kvw bench decode: prefill and decode tokens/s per weight type (tinyllama-shape) or of a given
// model, decode at several context lengths, against the memory read bandwidth of this machine
// measured in the same run; each model on every backend asked for (by default the reference
// `cpu` and `cpu:fast`) back to back, with the ratios to the first, the K/V rows cached in the
// storage types asked for (f32 by default). Decoding goes through Generator, the workbench's own
// append path (docs/ARCHITECTURE.md §5.2).
#include <algorithm>
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "bench_timing.h"
#include "commands.h"
#include "common_options.h"
#include "core/backend/backend.h"
#include "core/backend/backend_registry.h"
#include "core/cache/kv_storage.h"
#include "core/engine/transformer.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/model_loader.h"
#include "core/model/synthetic_model.h"
#include "core/session/generator.h"
#include "core/session/soak.h"
#include "weight_type_option.h"

namespace kvw::cli {
namespace {

// Bytes of weights one decode step streams from memory: every matrix and norm of every layer,
// the final norm and the output projection, but only one row of the embedding table.
size_t weight_bytes_per_token(const ModelWeights& w) {
    size_t bytes = w.output_norm.bytes() + w.output.bytes() + w.token_embd.row_bytes();
    for (const LayerWeights& l : w.layers)
        for (const WeightTensor* t : l.tensors()) bytes += t->bytes();
    return bytes;
}

// Bytes of cached K and V one decode step reads with `rows` rows in every layer.
size_t kv_bytes_per_token(const KvLayout& cache, int rows) {
    const KvStorage& s = cache.storage();
    return size_t(cache.n_layers()) * size_t(rows) * size_t(cache.kv_dim()) *
           size_t(kv_type_bytes(s.k) + kv_type_bytes(s.v));
}

struct BenchPlan {
    std::vector<int> contexts;  // ascending; the first is the prompt whose prefill is timed
    int decode_tokens = 0;
    std::vector<std::string> backends;  // each model runs on each, in this order
    int threads = 0;  // CPU threads of the engine and the CPU backend; 0: every core
    // Storage of the cached K and V rows: f32 by default; llama-bench keeps an f16 cache.
    KvType k_type = KvType::F32;
    KvType v_type = KvType::F32;
};

struct ContextLine {
    int context = 0;
    double decode_tok_s = 0;
    double gb_per_token = 0;  // weights + the K/V rows read
};

struct ModelResult {
    std::string label;
    std::string backend;
    double weights_gb = 0;
    double resident_gb = 0;  // of the process after the last decode: weights, cache, buffers
    double prefill_tok_s = 0;
    // The backend's memory read bandwidth (GB/s), measured right after its decode steps, so it
    // sees the same (warm, otherwise idle) machine: host memory for a CPU backend, the device's
    // for an accelerator.
    double ceiling_gbs = 0;
    std::string device;
    std::vector<ContextLine> lines;
};

// A fixed token spread over the vocabulary for row i of the filler text.
int32_t filler_token(int i, int vocab) {
    return 3 + int32_t((uint64_t(i) * 7919u) % uint64_t(vocab - 3));
}

ModelResult bench_model(const std::string& label, const std::shared_ptr<const Model>& model,
                        const std::string& backend_name, const BenchPlan& plan) {
    const auto backend = create_backend(backend_name, plan.threads);
    const Transformer transformer(model, *backend);
    ModelResult result;
    result.label = label;
    result.backend = backend_name;
    result.weights_gb = double(model->weights.total_bytes()) / 1e9;
    const int vocab = model->config.vocab_size;
    const size_t weight_bytes = weight_bytes_per_token(model->weights);

    // One generator per context, each filled by one prefill; then the decode steps go round
    // the contexts in turn, so that a change in the machine's memory bandwidth while the bench
    // runs (other processes, other tenants) falls on every context alike and their ratios
    // hold. Decoding each context's tokens in a row had 4k decode faster than 128 in some runs.
    std::vector<std::unique_ptr<Generator>> generators;
    std::vector<std::vector<double>> decode_seconds(plan.contexts.size());
    for (size_t c = 0; c < plan.contexts.size(); ++c) {
        StateOptions state;
        state.capacity = plan.contexts[c] + plan.decode_tokens;
        state.k_type = plan.k_type;
        state.v_type = plan.v_type;
        // The guard re-checks every row of every layer after each append (a window toggle); it
        // would add work that grows with the context to every step.
        state.guard = false;
        auto generator = std::make_unique<Generator>(transformer, SamplingParams{}, state);
        generator->set_step_hook([&decode_seconds, c](Generator::Phase phase, int, double seconds) {
            if (phase == Generator::Phase::Decode) decode_seconds[c].push_back(seconds);
        });
        std::vector<int32_t> filler;
        for (int i = 0; i < plan.contexts[c]; ++i) filler.push_back(filler_token(i, vocab));
        generator->prefill(filler);
        if (c == 0) result.prefill_tok_s = plan.contexts[c] / generator->timings().prefill_seconds;
        generators.push_back(std::move(generator));
    }
    for (int i = 0; i < plan.decode_tokens; ++i)
        for (const auto& generator : generators) generator->decode_next();
    for (size_t c = 0; c < plan.contexts.size(); ++c) {
        const double seconds = median(decode_seconds[c]);
        const int mid_rows = plan.contexts[c] + plan.decode_tokens / 2;
        result.lines.push_back(
            {plan.contexts[c], 1.0 / seconds,
             double(weight_bytes + kv_bytes_per_token(generators[c]->state().cache(), mid_rows)) /
                 1e9});
        spdlog::info("[bench] {} on {}: context {} decoded at {:.2f} tok/s", label, backend_name,
                     plan.contexts[c], 1.0 / seconds);
    }
    result.resident_gb = double(resident_bytes()) / 1e9;
    result.ceiling_gbs = backend->measure_read_bandwidth_gbs(size_t(1) << 30);
    result.device = backend->device().name;
    return result;
}

// tinyllama-shape in one weight type, its context long enough for the plan.
std::shared_ptr<const Model> synthetic_model_for(const WeightTypeName& type,
                                                 const BenchPlan& plan) {
    SyntheticSpec spec = synthetic_spec("tinyllama-shape", type.type);
    spec.config.max_context =
        std::max(spec.config.max_context, plan.contexts.back() + plan.decode_tokens);
    const auto start = BenchClock::now();
    std::shared_ptr<const Model> model = load_gguf_model(synthetic_source(spec));
    spdlog::info("[bench] {} model written and loaded in {:.1f} s", type.name,
                 ms_since(start) / 1e3);
    return model;
}

std::vector<WeightTypeName> chosen_types(const std::string& text) {
    if (text == "all") return {weight_type_table().begin(), weight_type_table().end()};
    std::vector<WeightTypeName> out;
    for (const std::string& name : split_list(text)) {
        const GgufType type = parse_weight_type(name);
        for (const WeightTypeName& w : weight_type_table())
            if (w.type == type) out.push_back(w);
    }
    if (out.empty()) throw UsageError("--types names no weight type");
    return out;
}

BenchPlan plan_from_args(const CliArgs& args) {
    BenchPlan plan;
    for (const std::string& c : split_list(args.get("contexts")))
        plan.contexts.push_back(int(parse_count("--contexts", c, INT32_MAX / 2)));
    if (plan.contexts.empty()) throw UsageError("--contexts names no context length");
    std::sort(plan.contexts.begin(), plan.contexts.end());
    plan.contexts.erase(std::unique(plan.contexts.begin(), plan.contexts.end()),
                        plan.contexts.end());
    if (plan.contexts.front() < 1) throw UsageError("context lengths must be >= 1");
    plan.decode_tokens = int(args.get_count("decode-tokens", INT32_MAX / 2));
    if (plan.decode_tokens < 1) throw UsageError("--decode-tokens must be >= 1");
    plan.backends = split_list(args.get("backend"));
    if (plan.backends.empty()) throw UsageError("--backend names no backend");
    for (const std::string& b : plan.backends) {
        std::string why;
        if (b != "auto" && !backend_available(b, why))
            throw UsageError("--backend " + b + ": " + why);
    }
    plan.threads = int(args.get_count("threads", 1024));
    plan.k_type = named_option(args, "k-type", kKvTypeNames);
    plan.v_type = named_option(args, "v-type", kKvTypeNames);
    return plan;
}

void print_config(const ModelConfig& c) {
    std::printf("%d layers, hidden %d, heads %d/%d kv, ffn %d, vocab %d", c.n_layers, c.n_embd,
                c.n_heads, c.n_kv_heads, c.n_ff, c.vocab_size);
}

// Each backend after the first against the first on the same model, measured back to back:
// prefill and decode tok/s ratios per context (the figures that hold when the machine is busy).
void print_ratios(const std::vector<ModelResult>& results,
                  const std::vector<std::string>& backends) {
    if (backends.size() < 2) return;
    std::printf("\nagainst %s (same model, measured back to back):\n", backends[0].c_str());
    std::printf("%-10s %-10s %8s %8s %8s\n", "type", "backend", "context", "prefill", "decode");
    for (size_t i = 0; i < results.size(); ++i) {
        const ModelResult& r = results[i];
        if (r.backend == backends[0]) continue;
        const ModelResult& base = results[i - i % backends.size()];
        for (size_t c = 0; c < r.lines.size(); ++c)
            std::printf("%-10s %-10s %8d %7.2fx %7.2fx\n", r.label.c_str(), r.backend.c_str(),
                        r.lines[c].context, r.prefill_tok_s / base.prefill_tok_s,
                        r.lines[c].decode_tok_s / base.lines[c].decode_tok_s);
    }
}

int run_bench_decode(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    if (args.has("model") && args.has("types"))
        throw UsageError("--types chooses synthetic models; --model benches one file");
    const BenchPlan plan = plan_from_args(args);

    std::vector<ModelResult> results;
    std::string description;
    ModelConfig config;
    if (args.has("model")) {
        const std::shared_ptr<const Model> model = load_model(args.get("model"));
        const int needed = plan.contexts.back() + plan.decode_tokens;
        if (needed > model->config.max_context)
            throw UsageError("the largest context + decode tokens (" + std::to_string(needed) +
                             ") exceed the model's context of " +
                             std::to_string(model->config.max_context));
        description = model->source;
        config = model->config;
        for (const std::string& backend : plan.backends)
            results.push_back(bench_model(model->file_type, model, backend, plan));
    } else {
        for (const WeightTypeName& type : chosen_types(args.get("types"))) {
            const std::shared_ptr<const Model> model = synthetic_model_for(type, plan);
            config = model->config;
            for (const std::string& backend : plan.backends)
                results.push_back(bench_model(type.name, model, backend, plan));
        }
        description = "tinyllama-shape";
    }
    std::printf("kvw bench decode: %s (", description.c_str());
    print_config(config);
    std::string backends;
    for (const std::string& b : plan.backends) backends += (backends.empty() ? "" : ", ") + b;
    std::printf("), backends %s, %s threads, decode %d tokens per context (median), K/V %s/%s\n",
                backends.c_str(), plan.threads > 0 ? std::to_string(plan.threads).c_str() : "all",
                plan.decode_tokens, kv_type_name(plan.k_type), kv_type_name(plan.v_type));
    for (const std::string& b : plan.backends)
        for (const ModelResult& r : results)
            if (r.backend == b) {
                std::printf("%s: %s, memory read ceiling (streaming 1 GiB) %.1f GB/s\n", b.c_str(),
                            r.device.c_str(), r.ceiling_gbs);
                break;
            }
    std::printf("%-10s %-10s %10s %11s %14s %8s %13s %14s %8s %11s\n", "type", "backend",
                "weights GB", "resident GB", "prefill tok/s", "context", "decode tok/s",
                "GB read/token", "GB/s", "of ceiling");
    for (const ModelResult& r : results) {
        for (const ContextLine& line : r.lines) {
            const double gbs = line.gb_per_token * line.decode_tok_s;
            std::printf("%-10s %-10s %10.2f %11.2f %14.1f %8d %13.2f %14.3f %8.1f %10.1f%%\n",
                        r.label.c_str(), r.backend.c_str(), r.weights_gb, r.resident_gb,
                        r.prefill_tok_s, line.context, line.decode_tok_s, line.gb_per_token, gbs,
                        100.0 * gbs / r.ceiling_gbs);
        }
    }
    print_ratios(results, plan.backends);
    return 0;
}

}  // namespace

CommandSpec bench_decode_command() {
    return {
        "bench decode",
        "",
        "prefill and decode tokens/s per weight type (tinyllama-shape) or of one model, "
        "decode at several context lengths, against the memory read bandwidth",
        {{"types", "T,T", "f32,f16",
          "weight types of tinyllama-shape: " + weight_type_names() + " or all"},
         {"model", "SPEC", "", "bench this model (a file or anything --model takes) instead"},
         {"contexts", "N,N", "128,1024,4096",
          "cached rows to decode after; the first is the timed prefill"},
         {"decode-tokens", "N", "8", "decode steps per context (the median is reported)"},
         {"backend", "NAME,NAME", "cpu,cpu:fast",
          "backends to bench each model on, back to back, the ratios against the first: " +
              backend_option("cpu").help},
         {"threads", "N", "0", "CPU threads (engine and CPU backend); 0: every core"},
         {"k-type", "TYPE", "f32", "storage of the cached K rows: " + names_in(kKvTypeNames, ", ")},
         {"v-type", "TYPE", "f32",
          "storage of the cached V rows: " + names_in(kKvTypeNames, ", ")}},
        run_bench_decode};
}

}  // namespace kvw::cli
