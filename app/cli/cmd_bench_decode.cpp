// kvw bench decode: prefill and decode tokens/s of tinyllama-shape per weight type, against the
// memory read bandwidth of this machine measured in the same run, printed side by side.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/backend/memory_bandwidth.h"
#include "core/engine/generator.h"
#include "core/engine/transformer.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/synthetic_model.h"
#include "weight_type_option.h"

namespace kvw::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Bytes of weights one decode step streams from memory: every matrix and norm of every layer,
// the final norm and the output projection, but only one row of the embedding table.
size_t weight_bytes_per_token(const ModelWeights& w) {
    size_t bytes = w.output_norm.bytes() + w.output.bytes() + w.token_embd.row_bytes();
    for (const LayerWeights& l : w.layers)
        for (const WeightTensor* t :
             {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down})
            bytes += t->bytes();
    return bytes;
}

struct DecodeRow {
    std::string type;
    double weights_gb = 0;
    double prefill_tok_s = 0;
    double decode_tok_s = 0;
    double bytes_per_token_gb = 0;
};

DecodeRow bench_one_type(const std::string& type_name, const std::string& backend_name,
                         int prompt_tokens, int decode_tokens) {
    const SyntheticSpec spec = synthetic_spec("tinyllama-shape", parse_weight_type(type_name));
    auto start = Clock::now();
    const std::shared_ptr<const Model> model = load_gguf_model(synthetic_source(spec));
    spdlog::info("[bench] {} model written and loaded in {:.1f} s", type_name,
                 seconds_since(start));

    const auto backend = create_backend(backend_name);
    const Transformer transformer(model, *backend);
    Generator generator(transformer, SamplingParams{}, prompt_tokens + decode_tokens);
    std::vector<double> decode_seconds;
    generator.set_step_hook([&](Generator::Phase phase, int, double seconds) {
        if (phase == Generator::Phase::Decode) decode_seconds.push_back(seconds);
    });

    std::vector<int32_t> prompt(static_cast<size_t>(prompt_tokens));
    for (int i = 0; i < prompt_tokens; ++i)  // spread over the vocabulary, fixed
        prompt[size_t(i)] =
            3 + int32_t((uint64_t(i) * 7919u) % uint64_t(spec.config.vocab_size - 3));
    generator.prefill(prompt);
    for (int i = 0; i < decode_tokens; ++i) generator.decode_next();

    std::sort(decode_seconds.begin(), decode_seconds.end());
    const double median = decode_seconds[decode_seconds.size() / 2];
    DecodeRow row;
    row.type = type_name;
    row.weights_gb = double(model->weights.total_bytes()) / 1e9;
    row.prefill_tok_s = prompt_tokens / generator.timings().prefill_seconds;
    row.decode_tok_s = 1.0 / median;
    row.bytes_per_token_gb = double(weight_bytes_per_token(model->weights)) / 1e9;
    return row;
}

int run_bench_decode(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const std::string types = args.get("types");
    const int prompt_tokens = int(args.get_count("prompt-tokens", INT32_MAX));
    const int decode_tokens = int(args.get_count("decode-tokens", INT32_MAX));
    const std::string backend = args.get("backend");
    if (prompt_tokens < 1 || decode_tokens < 1) throw UsageError("token counts must be >= 1");

    std::vector<DecodeRow> rows;
    std::stringstream list(types);
    for (std::string type; std::getline(list, type, ',');)
        rows.push_back(bench_one_type(type, backend, prompt_tokens, decode_tokens));
    // Measured after the models so it sees the same (warm, otherwise idle) machine.
    const double ceiling = measure_read_bandwidth_gbs(size_t(1) << 30);

    std::printf(
        "kvw bench decode: tinyllama-shape (22 layers, hidden 2048, ffn 5632, vocab 32000),"
        " backend %s, prompt %d tokens, decode %d tokens (median)\n",
        backend.c_str(), prompt_tokens, decode_tokens);
    std::printf("memory read ceiling (all cores streaming 1 GiB): %.1f GB/s\n", ceiling);
    std::printf("%-5s %10s %14s %13s %14s %10s %12s\n", "type", "weights GB", "prefill tok/s",
                "decode tok/s", "GB read/token", "GB/s", "of ceiling");
    for (const DecodeRow& r : rows) {
        const double gbs = r.bytes_per_token_gb * r.decode_tok_s;
        std::printf("%-5s %10.2f %14.1f %13.2f %14.3f %10.1f %11.1f%%\n", r.type.c_str(),
                    r.weights_gb, r.prefill_tok_s, r.decode_tok_s, r.bytes_per_token_gb, gbs,
                    100.0 * gbs / ceiling);
    }
    return 0;
}

}  // namespace

CommandSpec bench_decode_command() {
    return {"bench decode",
            "",
            "prefill and decode tokens/s of tinyllama-shape per weight type, against the memory "
            "read bandwidth",
            {{"types", "T,T", "f32,f16", "weight types to compare: f32, f16, bf16"},
             {"prompt-tokens", "N", "128", "prompt length"},
             {"decode-tokens", "N", "16", "decode steps (the median is reported)"},
             backend_option("cpu")},
            run_bench_decode};
}

}  // namespace kvw::cli
