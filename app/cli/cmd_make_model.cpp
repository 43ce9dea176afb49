// kvw make-model: writes one of the project's synthetic models as a GGUF file.
#include <cstdio>
#include <stdexcept>

#include "commands.h"
#include "common_options.h"
#include "core/io/replacing_file.h"
#include "core/model/builtin_models.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_requantize.h"
#include "core/model/mapped_file.h"
#include "core/model/synthetic_model.h"
#include "weight_type_option.h"

namespace kvw::cli {

namespace {

// The longest context a synthetic model may declare here: far beyond what the cache holds
// (capacity defaults to at most 8,192 rows), small enough for 32-bit positions everywhere.
constexpr int64_t kMaxSyntheticContext = 1 << 20;

// Beside `out`, then renamed over it: the rename gives `out` a new inode, so a process that
// maps the old model (a session using it) keeps its bytes; writing in place would truncate the
// file under that mapping and kill the process with SIGBUS.
void write_bytes(const std::vector<uint8_t>& bytes, const std::string& out) {
    write_file_atomically(out, bytes);
}

// A GGUF file (or builtin:NAME) with its matrices re-encoded as --type.
int requantize_file(const CliArgs& args, const std::string& model, const std::string& out) {
    if (!args.has("type")) throw UsageError("make-model of a GGUF file needs --type");
    if (args.has("seed") || args.has("context"))
        throw UsageError("--seed and --context are for the synthetic models");
    const GgufType type = parse_weight_type(args.get("type"));
    const std::string path =
        model.starts_with("builtin:") ? find_builtin_model(model.substr(8)).string() : model;
    write_bytes(requantize_gguf(GgufFile(map_file(path)), type), out);
    std::printf("wrote %s (%s with its matrices as %s)\n", out.c_str(), model.c_str(),
                std::string(gguf_type_name(type)).c_str());
    return 0;
}

int run_make_model(const CliArgs& args) {
    if (args.positional().size() != 2)
        throw UsageError(
            "make-model takes a model (tiny|tinyllama-shape|FILE.gguf|builtin:NAME) and an "
            "output path");
    const std::string& model = args.positional()[0];
    check_output_path("OUT", args.positional()[1]);
    if (model != "tiny" && model != "tinyllama-shape")
        return requantize_file(args, model, args.positional()[1]);
    SyntheticSpec spec = synthetic_spec(args.positional()[0]);
    if (args.has("type")) spec = synthetic_spec(spec.name, parse_weight_type(args.get("type")));
    if (args.has("seed")) spec.seed = uint64_t(args.get_count("seed", INT64_MAX));
    if (args.has("context")) {
        // Only the length the model declares (llama.context_length): RoPE takes any phase, so
        // the same weights serve a longer context, e.g. for `kvw bench wlod --tokens 8192`.
        const int64_t context = args.get_count("context", kMaxSyntheticContext);
        if (context < 16) throw UsageError("--context must be >= 16");
        spec.config.max_context = int(context);
    }
    const std::string& out = args.positional()[1];
    write_bytes(write_synthetic_gguf(spec), out);
    std::printf("wrote %s (%s, %d layers, hidden %d, vocab %d, context %d, seed %llu)\n",
                out.c_str(), spec.name.c_str(), spec.config.n_layers, spec.config.n_embd,
                spec.config.vocab_size, spec.config.max_context,
                static_cast<unsigned long long>(spec.seed));
    return 0;
}

}  // namespace

CommandSpec make_model_command() {
    return {"make-model",
            "tiny|tinyllama-shape|FILE.gguf|builtin:NAME OUT",
            "write one of the synthetic models (random weights) as a GGUF file, or a copy of a "
            "GGUF model with its matrices in another type",
            {{"type", "f32|f16|bf16|q8_0|q4_0|q4_k|q6_k", "",
              "matrix type (default: the model's own; required for a file)"},
             {"seed", "S", "", "weight seed (default: the model's own)"},
             {"context", "N", "", "context length the synthetic model declares (default 2048)"}},
            run_make_model};
}

}  // namespace kvw::cli
