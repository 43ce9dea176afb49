#pragma once
// What every fuzz target shares. A target is one LLVMFuzzerTestOneInput per parser; the same
// function runs under libFuzzer (KVW_FUZZ=ON, clang) and under replay_main.cpp, which feeds it
// the files of corpus folders as an ordinary CTest test.
//
// Outcomes: the parser accepts the input, or it throws one of the project's typed errors (the
// clear refusal that names the file and the place). Anything else — another exception type, a
// crash, a sanitizer report, a broken promise such as a round trip — is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include <spdlog/spdlog.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace kvw::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// The loaders log every model they load; at thousands of runs a second that would drown the
// fuzzer's own output and slow it down. Set once, before the first run.
inline const bool logs_off = (spdlog::set_level(spdlog::level::off), true);

// Runs `parse`; an exception of one of the Typed classes is an expected outcome and is
// swallowed, any other escapes (libFuzzer reports it as a crash, the replay driver names it).
template <class... Typed, class Parse>
void accept_typed_errors(Parse&& parse) {
    try {
        parse();
    } catch (const std::exception& e) {
        if (!(... || (dynamic_cast<const Typed*>(&e) != nullptr))) throw;
    }
}

// A promise of the parser does not hold: says which and aborts, so that libFuzzer keeps the
// input and the replay driver fails on it.
[[noreturn]] inline void finding(const char* what) {
    std::fprintf(stderr, "fuzz finding: %s\n", what);
    std::abort();
}

}  // namespace kvw::fuzz
