#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend/backend.h"

namespace kvw {

// Backends other than the CPU one (CUDA in kernels/) register here at start-up; the core never
// includes their headers.
struct BackendEntry {
    std::string name;
    // Returns true when the backend can run here; otherwise fills `why` for the user.
    std::function<bool(std::string& why)> available;
    std::function<std::unique_ptr<Backend>()> create;
};

void register_backend(BackendEntry entry);

// "cpu" runs the fastest matmul kernel this CPU has; "cpu:avx512", "cpu:avx2" and "cpu:scalar"
// pin one. The kernels sum in different lane orders (core/backend/cpu/matmul_kernels.h), so the
// cache's bytes, and with them state hashes and golden screenshots that show one, are the same
// on two machines only when both ran the same kernel: a trace or script that names a pinned
// kernel reproduces on every machine that has it.
//
// "cpu:fast" is the other CPU kernel set (fast_cpu_backend.h): it rounds activations to int8
// blocks as llama.cpp does, so it is faster and not the numeric reference.
std::vector<std::string>
backend_names();  // "cpu", the pinned CPU kernels, "cpu:fast", the registered ones
bool backend_available(std::string_view name, std::string& why);

// A name of backend_names() or "auto" (the first available accelerator, else the CPU with a log
// line saying why). `cpu_threads` sizes a CPU backend's pool (0: every core). Throws
// std::invalid_argument for an unknown or unavailable name.
std::unique_ptr<Backend> create_backend(std::string_view name, int cpu_threads = 0);

}  // namespace kvw
