#include "program_beside.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace kvw::cli {

int exec_beside(const std::string& command, const std::string& program,
                const std::vector<std::string>& args) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path path = self.parent_path() / program;
    if (ec || !std::filesystem::exists(path)) {
        std::fprintf(stderr,
                     "%s: runs %s, which is built with the GUI next to kvw (expected at %s).\n"
                     "Build it with: cmake --build build --target %s   (needs "
                     "-DKVW_BUILD_APP=ON, the default)\n",
                     command.c_str(), program.c_str(), path.c_str(), program.c_str());
        return 2;
    }
    std::vector<std::string> words{path.string()};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    execv(path.c_str(), argv.data());
    std::perror((command + ": cannot run " + program).c_str());
    return 1;
}

}  // namespace kvw::cli
