// kvw generate: prompt in, sampled tokens out (ids and text), deterministic for a seed.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "cli_args.h"
#include "commands.h"
#include "sampling_args.h"
#include "core/backend/backend_registry.h"
#include "core/engine/generator.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"

namespace kvw::cli {
namespace {

void print_ids(const char* label, std::span<const int32_t> ids) {
    std::printf("%s", label);
    for (const int32_t id : ids) std::printf(" %d", id);
    std::printf("\n");
}

}  // namespace

int cmd_generate(const Words& words) {
    const CliArgs args(words, {"model", "prompt", "n", "seed", "temp", "top-k", "top-p", "backend"},
                       {"ignore-eos"});
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const auto model = load_model(args.get("model", "synthetic:tiny"));
    const SamplingParams sampling = sampling_from_args(args);
    const long n = long(args.get_count("n", 32, INT32_MAX));

    const std::vector<int32_t> prompt = model->tokenizer.encode(args.get("prompt", ""), true);
    if (prompt.empty()) throw UsageError("the prompt gives no tokens (and the model adds no BOS)");
    const long needed = long(prompt.size()) + n;
    if (needed > model->config.max_context)
        throw UsageError("prompt (" + std::to_string(prompt.size()) + " tokens) + n (" +
                         std::to_string(n) + ") exceeds the model's context of " +
                         std::to_string(model->config.max_context));

    const auto backend = create_backend(args.get("backend", "auto"));
    const Transformer transformer(model, *backend);
    Generator generator(transformer, sampling, int(needed));
    generator.prefill(prompt);
    std::vector<int32_t> generated;
    for (long i = 0; i < n; ++i) {
        const int32_t token = generator.decode_next();
        generated.push_back(token);
        if (token == model->tokenizer.eos_id() && !args.has("ignore-eos")) break;
    }

    print_ids("prompt ids:", prompt);
    print_ids("generated ids:", generated);
    std::vector<int32_t> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    std::printf("text: %s\n", model->tokenizer.decode(all).c_str());
    const GenerationTimings& t = generator.timings();
    spdlog::info("{}: prefill {} tokens in {:.3f} s, decode {} tokens in {:.3f} s ({:.1f} tok/s)",
                 backend->name(), t.prefill_items, t.prefill_seconds, t.decode_items,
                 t.decode_seconds, t.decode_seconds > 0 ? t.decode_items / t.decode_seconds : 0.0);
    return 0;
}

}  // namespace kvw::cli
