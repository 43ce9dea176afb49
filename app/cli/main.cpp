// kvw: the headless command line of KV Workbench.
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include <spdlog/spdlog.h>

#include "cli_args.h"
#include "commands.h"
#include "core/model/model_error.h"
#ifdef KVW_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace {

constexpr const char* kUsage =
    "usage: kvw COMMAND [options]\n"
    "  generate   --model PATH|synthetic:tiny --prompt TEXT -n N --seed S\n"
    "             [--temp T --top-k K --top-p P --backend auto|cpu|cuda --threads N]\n"
    "  tokenize   --model M TEXT            token ids and pieces of TEXT\n"
    "  info       PATH|synthetic:NAME       config, tensor table, vocabulary size\n"
    "  make-model tiny|tinyllama-shape OUT [--type f32|f16|bf16] [--seed S]\n"
    "  run        --model M --prompt P --ticks N [--policy manual|pair-merge]\n"
    "             [--rope final_index|reindex|original] [--actions FILE] [--trace OUT]\n"
    "             [--capacity ROWS] [--layout contiguous|batch_splice|indirection] [sampling options as for generate]\n"
    "             FILE holds an action list, queued for the first tick\n"
    "  replay     TRACE [--model M]          repeat a trace, check every state hash\n"
    "  soak       --model M --ticks N --seed S [--capacity ROWS] [--segment TICKS]\n"
    "             random valid and invalid edits, rebuilds, layout and RoPE switches;\n"
    "             exit 1 at the first broken invariant, lost record or memory growth\n"
    "  bench      decode [--type f32|f16|all] [--prompt-tokens N] [--decode-tokens N]\n"
    "  bench      edits [--model M] [--rows N] [--capacity N] [--prefill-rows N] [--reps N]\n"
    "  bench      ui [--quick]             Frame build, layer-map repaint, UI stalls (kvw-bench-ui)\n"
    "             [--full-reps N]   cache layouts compared on one replace_pair\n"
    "A model is a .gguf file, a Hugging Face folder, or synthetic:tiny / synthetic:tinyllama-shape.\n";

}  // namespace

int main(int argc, char** argv) {
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
#ifdef KVW_WITH_CUDA
    kvw::register_cuda_backend();
#endif
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "help") {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::map<std::string, int (*)(const kvw::cli::Words&)> commands = {
        {"generate", kvw::cli::cmd_generate}, {"tokenize", kvw::cli::cmd_tokenize},
        {"info", kvw::cli::cmd_info},         {"make-model", kvw::cli::cmd_make_model},
        {"bench", kvw::cli::cmd_bench},       {"run", kvw::cli::cmd_run},
        {"replay", kvw::cli::cmd_replay},     {"soak", kvw::cli::cmd_soak},
    };
    const auto command = commands.find(argv[1]);
    if (command == commands.end()) {
        std::fprintf(stderr, "kvw: unknown command '%s'\n%s", argv[1], kUsage);
        return 2;
    }
    try {
        return command->second(kvw::cli::Words(argv + 2, argv + argc));
    } catch (const kvw::cli::UsageError& e) {
        std::fprintf(stderr, "kvw %s: %s\n%s", argv[1], e.what(), kUsage);
        return 2;
    } catch (const kvw::ModelError& e) {
        std::fprintf(stderr, "kvw %s: %s\n", argv[1], e.what());
        return 3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kvw %s: error: %s\n", argv[1], e.what());
        return 1;
    }
}
