// kvw bench ui: the window's costs are measured by kvw-bench-ui, a Qt program of its own (kvw
// stays free of Qt); this runs it from beside kvw, or says where it comes from.
#include <string>
#include <vector>

#include "commands.h"
#include "program_beside.h"

namespace kvw::cli {

namespace {

int run_bench_ui(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    std::vector<std::string> words;
    if (args.has("quick")) words.push_back("--quick");
    if (args.has("built-only")) words.push_back("--built-only");
    return exec_beside("kvw bench ui", "kvw-bench-ui", words);
}

}  // namespace

CommandSpec bench_ui_command() {
    return {"bench ui",
            "",
            "Frame build, layer-map repaint and UI-thread stalls (runs kvw-bench-ui)",
            {{"quick", "", "",
              "2k and 8k rows only, no built 100k Frames, no tinyllama-shape stall (2.2 GB, slow)"},
             {"built-only", "", "",
              "only the views and maps on built 22 x 100,000 Frames (no session, no prefill)"}},
            run_bench_ui};
}

}  // namespace kvw::cli
