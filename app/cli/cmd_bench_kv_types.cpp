// kvw bench kv-types: what storing cached K/V rows in f16 / bf16 / int8 / FP8 costs
// (docs/ARCHITECTURE.md §13):
//   1. encode and decode time per row of the model's kv_dim, with the bytes a row takes, and the
//      input rate in GB/s of float32 read (encode) or written (decode);
//   2. the price in quality: perplexity over held-out texts through the session path (the
//      manual proposer, so nothing but the storage differs), per K / V type pair against f32.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "core/cache/kv_storage.h"
#include "core/eval/perplexity.h"
#include "core/eval/session_scorer.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "policy_eval.h"

namespace kvw::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr KvType kTypes[] = {KvType::F32, KvType::F16, KvType::BF16, KvType::Int8, KvType::Fp8E4M3};

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Best of `reps` passes over `rows` rows: encode, then decode.
void bench_codecs(int kv_dim, int groups, int rows, int reps) {
    std::mt19937 rng(1);
    std::normal_distribution<float> value(0.0f, 1.0f);
    std::vector<float> x(size_t(rows) * size_t(kv_dim)), y(x.size());
    for (float& v : x) v = value(rng);
    std::printf(
        "\n== 1. Encode / decode, %d rows of kv_dim %d (%d scales a row for int8, fp8), "
        "best of %d\n",
        rows, kv_dim, groups, reps);
    std::printf("  %-6s %10s %14s %14s %12s %12s %14s\n", "type", "bytes/row", "encode ns/row",
                "decode ns/row", "encode GB/s", "decode GB/s", "max rel. err");
    for (KvType t : kTypes) {
        const size_t row_bytes = size_t(kv_dim) * size_t(kv_type_bytes(t));
        std::vector<uint8_t> code(size_t(rows) * row_bytes);
        std::vector<float> scales(size_t(rows) * size_t(groups));
        double enc = 1e30, dec = 1e30;
        QuantStats st;
        for (int rep = 0; rep < reps; ++rep) {
            Clock::time_point start = Clock::now();
            for (int r = 0; r < rows; ++r)
                kv_encode_row(t, &x[size_t(r) * kv_dim], kv_dim, groups,
                              &code[size_t(r) * row_bytes], &scales[size_t(r) * groups], st);
            enc = std::min(enc, seconds_since(start));
            start = Clock::now();
            for (int r = 0; r < rows; ++r)
                kv_decode_row(t, &code[size_t(r) * row_bytes], &scales[size_t(r) * groups], kv_dim,
                              groups, &y[size_t(r) * kv_dim]);
            dec = std::min(dec, seconds_since(start));
        }
        double err = 0;  // max |y - x| / ||x row||
        for (int r = 0; r < rows; ++r) {
            double diff = 0, norm = 0;
            for (int i = 0; i < kv_dim; ++i) {
                const size_t at = size_t(r) * kv_dim + size_t(i);
                diff = std::max(diff, std::fabs(double(y[at]) - double(x[at])));
                norm += double(x[at]) * double(x[at]);
            }
            err = std::max(err, diff / std::sqrt(norm));
        }
        const double stored = double(row_bytes + (kv_type_scaled(t) ? groups * 4 : 0));
        const double floats = double(rows) * kv_dim * sizeof(float);
        std::printf("  %-6s %10.0f %14.1f %14.1f %12.2f %12.2f %14.2e\n", kv_type_name(t), stored,
                    enc / rows * 1e9, dec / rows * 1e9, floats / enc / 1e9, floats / dec / 1e9,
                    err);
    }
}

// Perplexity over every file (the NLL of all scored tokens together) for each K / V pair.
void bench_quality(const CliArgs& args, const std::shared_ptr<const Model>& model,
                   const std::vector<std::string>& files, int ctx) {
    const std::pair<KvType, KvType> pairs[] = {
        {KvType::F32, KvType::F32},         {KvType::F16, KvType::F16},
        {KvType::BF16, KvType::BF16},       {KvType::Int8, KvType::Int8},
        {KvType::Fp8E4M3, KvType::Fp8E4M3}, {KvType::BF16, KvType::Fp8E4M3},
    };
    std::vector<std::vector<int32_t>> texts;
    for (const std::string& f : files)
        texts.push_back(model->tokenizer.encode(read_text_file(f), true));
    std::printf("\n== 2. Perplexity, session path (manual proposer), ctx %d, %zu files\n", ctx,
                files.size());
    std::printf("  %-6s %-6s %10s %12s %12s %14s %9s\n", "K", "V", "tokens", "mean NLL",
                "perplexity", "vs f32 (%)", "seconds");
    double f32_ppl = 0;
    for (const auto& [k, v] : pairs) {
        SessionOptions o;
        o.model = args.get("model");
        o.backend = args.get("backend");
        o.capacity = ctx;
        o.k_type = k;
        o.v_type = v;
        Session session(o, model);
        SessionScorer scorer(session);
        PerplexityOptions p;
        p.ctx = ctx;
        double nll = 0;
        int64_t scored = 0;
        const Clock::time_point start = Clock::now();
        for (const auto& tokens : texts) {
            const PerplexityResult r = perplexity(tokens, model->tokenizer.bos_id(), p, scorer);
            nll += r.nll;
            scored += r.scored;
        }
        const double mean = scored ? nll / double(scored) : 0.0;
        const double ppl = std::exp(mean);
        if (k == KvType::F32 && v == KvType::F32) f32_ppl = ppl;
        std::printf("  %-6s %-6s %10lld %12.6f %12.4f %+14.3f %9.1f\n", kv_type_name(k),
                    kv_type_name(v), static_cast<long long>(scored), mean, ppl,
                    100.0 * (ppl / f32_ppl - 1.0), seconds_since(start));
    }
}

int run_bench_kv_types(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const int rows = int(args.get_count("rows", 1 << 20));
    const int reps = int(args.get_count("reps", 1000));
    if (rows < 1 || reps < 1) throw UsageError("--rows and --reps must be >= 1");
    const auto model = load_model(args.get("model"));
    const ModelConfig& c = model->config;
    std::printf("kvw bench kv-types: K/V storage types on %s (kv_dim %d, %d KV heads)\n",
                model->source.c_str(), c.kv_dim(), c.n_kv_heads);
    bench_codecs(c.kv_dim(), c.n_kv_heads, rows, reps);
    const std::vector<std::string> files = split_list(args.get("files"));
    if (files.empty()) return 0;
    const int ctx =
        args.has("ctx") ? int(args.get_count("ctx", INT32_MAX)) : std::min(128, c.max_context);
    if (ctx > c.max_context || ctx < 4)
        throw UsageError("--ctx must be in [4, " + std::to_string(c.max_context) + "]");
    bench_quality(args, model, files, ctx);
    return 0;
}

}  // namespace

CommandSpec bench_kv_types_command() {
    return {"bench kv-types",
            "",
            "encode / decode cost of each K/V storage type, and its perplexity against f32",
            {model_option(),
             {"files", "A,B", "", "texts to score (UTF-8, comma-separated; none: codecs only)"},
             {"ctx", "N", "", "tokens per perplexity chunk (default: 128, at most the context)"},
             {"rows", "N", "4096", "rows encoded and decoded per pass"},
             {"reps", "N", "9", "passes timed per type (the best is shown)"},
             backend_option("auto")},
            run_bench_kv_types};
}

}  // namespace kvw::cli
