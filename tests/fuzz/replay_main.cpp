// The replay driver: runs a fuzz target's LLVMFuzzerTestOneInput on every file of the folders
// (or files) given on the command line, in name order, so that seed corpora and regression
// inputs run as ordinary tests with any compiler. A file whose run throws something the target
// lets escape fails the run; a crash or a sanitizer report ends it, after the file's name was
// printed.
#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> inputs_of(const std::vector<fs::path>& roots) {
    std::vector<fs::path> files;
    for (const fs::path& root : roots) {
        if (fs::is_regular_file(root)) {
            files.push_back(root);
            continue;
        }
        // A missing folder is an error: a replay of nothing must not pass by accident.
        if (!fs::is_directory(root)) throw std::runtime_error("no such corpus: " + root.string());
        for (const fs::directory_entry& entry : fs::directory_iterator(root))
            if (entry.is_regular_file() && entry.path().filename().string().front() != '.')
                files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The exception's class as written in the source, not mangled.
std::string type_name(const std::exception& e) {
    int status = 0;
    char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
    std::string out = status == 0 ? name : typeid(e).name();
    std::free(name);
    return out;
}

std::vector<uint8_t> read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    std::vector<fs::path> files;
    try {
        files = inputs_of({argv + 1, argv + argc});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    if (files.empty()) {
        std::fprintf(stderr, "no inputs under the given paths\n");
        return 2;
    }
    int failed = 0;
    for (const fs::path& file : files) {
        std::fprintf(stderr, "replaying %s\n", file.c_str());
        const std::vector<uint8_t> bytes = read_all(file);
        try {
            LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "FINDING %s: untyped %s: %s\n", file.c_str(), type_name(e).c_str(),
                         e.what());
            ++failed;
        } catch (...) {
            std::fprintf(stderr, "FINDING %s: an exception that is not a std::exception\n",
                         file.c_str());
            ++failed;
        }
    }
    std::fprintf(stderr, "%zu inputs, %d findings\n", files.size(), failed);
    return failed ? 1 : 0;
}
