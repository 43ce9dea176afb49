#pragma once
#include <functional>
#include <memory>
#include <optional>
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

// The first registered accelerator that can run here, if any; `reasons` collects why each one
// before it cannot ("cuda: no device").
std::optional<std::string> usable_accelerator(std::string& reasons);

// The backend "auto" stands for, the fastest this machine has (ARCHITECTURE §18.1): a usable
// accelerator, else `cpu:fast` where this CPU runs it, else the reference `cpu`; the first time
// with a log line saying which and why. Any other name comes back as it is.
std::string resolve_backend(std::string_view name);

// The numeric set a backend belongs to on this machine: backends of one set compute the same
// numbers for the same model, so state hashes recorded on one hold on another. "cpu" for the
// reference family (`cpu` and its pinned kernels, which sum in their own lane orders all the
// same), `cpu:fast` (with "+tdpbf16ps" where its fastest path sums BF16 weights on AMX tiles and
// "+fp16-scores" where its attention sums scores in halves: FastCpuBackend::numeric_set), and
// any other backend on its own ("cuda"). A trace's header
// records it as its recording machine saw it ("numerics").
std::string numeric_set(std::string_view name);

// A name of backend_names() or "auto" (resolve_backend). `cpu_threads` sizes a CPU backend's
// pool (0: every core). Throws std::invalid_argument for an unknown or unavailable name.
std::unique_ptr<Backend> create_backend(std::string_view name, int cpu_threads = 0);

}  // namespace kvw
