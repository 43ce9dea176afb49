// kvw bench ui: the window's costs are measured by kvw-bench-ui, a Qt program of its own (kvw
// stays free of Qt); this runs it from beside kvw, or says where it comes from.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.h"

namespace kvw::cli {

namespace {

int run_bench_ui(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path program = self.parent_path() / "kvw-bench-ui";
    if (ec || !std::filesystem::exists(program)) {
        std::fprintf(stderr,
                     "kvw bench ui: runs kvw-bench-ui, which is built with the GUI next to kvw "
                     "(expected at %s).\nBuild it with: cmake --build build --target "
                     "kvw-bench-ui   (needs -DKVW_BUILD_APP=ON, the default)\n",
                     program.c_str());
        return 2;
    }
    std::vector<std::string> words{program.string()};
    if (args.has("quick")) words.push_back("--quick");
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    execv(program.c_str(), argv.data());
    std::perror("kvw bench ui: cannot run kvw-bench-ui");
    return 1;
}

}  // namespace

CommandSpec bench_ui_command() {
    return {"bench ui",
            "",
            "Frame build, layer-map repaint and UI-thread stalls (runs kvw-bench-ui)",
            {{"quick", "", "", "skip the tinyllama-shape stall (2.2 GB, slow)"}},
            run_bench_ui};
}

}  // namespace kvw::cli
