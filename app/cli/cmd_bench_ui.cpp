// kvw bench ui: the window's costs are measured by kvw-bench-ui, a Qt program of its own (kvw
// stays free of Qt); this runs it from beside kvw, or says where it comes from.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.h"

namespace kvw::cli {

int cmd_bench_ui(const Words& words) {
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
    std::vector<std::string> args{program.string()};
    args.insert(args.end(), words.begin(), words.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    execv(program.c_str(), argv.data());
    std::perror("kvw bench ui: cannot run kvw-bench-ui");
    return 1;
}

}  // namespace kvw::cli
