// kvw make-model: writes one of the project's synthetic models as a GGUF file.
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "commands.h"
#include "core/model/synthetic_model.h"
#include "weight_type_option.h"

namespace kvw::cli {

namespace {

int run_make_model(const CliArgs& args) {
    if (args.positional().size() != 2)
        throw UsageError("make-model takes a model name (tiny|tinyllama-shape) and an output path");
    SyntheticSpec spec = synthetic_spec(args.positional()[0]);
    if (args.has("type")) spec = synthetic_spec(spec.name, parse_weight_type(args.get("type")));
    if (args.has("seed")) spec.seed = uint64_t(args.get_count("seed", INT64_MAX));
    const std::string& out = args.positional()[1];
    const std::vector<uint8_t> bytes = write_synthetic_gguf(spec);
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!file.flush()) throw std::runtime_error("cannot write " + out);
    std::printf("wrote %s (%s, %d layers, hidden %d, vocab %d, seed %llu)\n", out.c_str(),
                spec.name.c_str(), spec.config.n_layers, spec.config.n_embd, spec.config.vocab_size,
                static_cast<unsigned long long>(spec.seed));
    return 0;
}

}  // namespace

CommandSpec make_model_command() {
    return {"make-model",
            "tiny|tinyllama-shape OUT",
            "write one of the synthetic models (random weights) as a GGUF file",
            {{"type", "f32|f16|bf16|q8_0|q4_0|q4_k|q6_k", "", "matrix type (default: the model's own)"},
             {"seed", "S", "", "weight seed (default: the model's own)"}},
            run_make_model};
}

}  // namespace kvw::cli
