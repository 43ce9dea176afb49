#include "core/backend/backend_registry.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/backend/cpu/fast_cpu_backend.h"
#include "core/backend/cpu/matmul_kernels.h"

namespace kvw {

namespace {

std::mutex registry_mutex;

std::vector<BackendEntry>& registry() {
    static std::vector<BackendEntry> entries;
    return entries;
}

const BackendEntry* find_entry(std::string_view name) {
    for (const BackendEntry& e : registry())
        if (e.name == name) return &e;
    return nullptr;
}

constexpr std::string_view kCpuPrefix = "cpu:";

// The kernel a "cpu:KERNEL" name pins, when it names one built into this program.
std::optional<cpu::RowsKernel> pinned_cpu_kernel(std::string_view name) {
    if (!name.starts_with(kCpuPrefix)) return std::nullopt;
    for (const cpu::RowsKernel& k : cpu::rows_kernels())
        if (k.name == name.substr(kCpuPrefix.size())) return k;
    return std::nullopt;
}

}  // namespace

void register_backend(BackendEntry entry) {
    std::lock_guard lock(registry_mutex);
    if (entry.name == "cpu" || entry.name == "auto" || entry.name.starts_with(kCpuPrefix) ||
        find_entry(entry.name))
        throw std::invalid_argument("backend name already taken: " + entry.name);
    registry().push_back(std::move(entry));
}

std::vector<std::string> backend_names() {
    std::lock_guard lock(registry_mutex);
    std::vector<std::string> names{"cpu"};
    for (const cpu::RowsKernel& k : cpu::rows_kernels())
        names.push_back(std::string(kCpuPrefix) + std::string(k.name));
    names.emplace_back(FastCpuBackend::kName);
    for (const BackendEntry& e : registry()) names.push_back(e.name);
    return names;
}

bool backend_available(std::string_view name, std::string& why) {
    if (name == "cpu") return true;
    if (name == FastCpuBackend::kName) return FastCpuBackend::available(why);
    if (const auto kernel = pinned_cpu_kernel(name)) {
        if (kernel->cpu_has()) return true;
        why = "this CPU cannot run the " + std::string(kernel->name) + " kernel";
        return false;
    }
    std::lock_guard lock(registry_mutex);
    const BackendEntry* entry = find_entry(name);
    if (!entry) {
        why = "unknown backend '" + std::string(name) + "'";
        return false;
    }
    return entry->available(why);
}

std::optional<std::string> usable_accelerator(std::string& reasons) {
    std::vector<BackendEntry> entries;
    {
        std::lock_guard lock(registry_mutex);
        entries = registry();
    }
    for (const BackendEntry& e : entries) {
        std::string why;
        if (e.available(why)) return e.name;
        reasons += (reasons.empty() ? "" : "; ") + e.name + ": " + why;
    }
    return std::nullopt;
}

std::string resolve_backend(std::string_view name) {
    if (name != "auto") return std::string(name);
    std::string reasons;
    std::string chosen;
    std::string why;
    if (const std::optional<std::string> accelerator = usable_accelerator(reasons)) {
        chosen = *accelerator;
    } else {
        if (reasons.empty()) reasons = "no accelerator backend was compiled in";
        std::string no_fast;
        chosen = FastCpuBackend::available(no_fast) ? std::string(FastCpuBackend::kName) : "cpu";
        why = " (" + reasons +
              (no_fast.empty() ? "" : "; " + std::string(FastCpuBackend::kName) + ": " + no_fast) +
              ")";
    }
    // Once: sweeps and soaks make many sessions, and the answer does not change.
    static std::atomic<bool> said{false};
    spdlog::log(said.exchange(true) ? spdlog::level::debug : spdlog::level::info,
                "backend auto: {}{}", chosen, why);
    return chosen;
}

std::string numeric_set(std::string_view name) {
    if (name == FastCpuBackend::kName) {
        std::string why;
        return FastCpuBackend::available(why) ? FastCpuBackend::numeric_set() : std::string(name);
    }
    if (name == "cpu" || name.starts_with(kCpuPrefix)) return "cpu";
    return std::string(name);
}

std::unique_ptr<Backend> create_backend(std::string_view name, int cpu_threads) {
    if (name == "auto") return create_backend(resolve_backend(name), cpu_threads);
    if (name == "cpu") return make_cpu_backend(cpu_threads);
    std::string why;
    if (!backend_available(name, why))
        throw std::invalid_argument("backend '" + std::string(name) + "' unavailable: " + why);
    if (const auto kernel = pinned_cpu_kernel(name))
        return make_cpu_backend(cpu_threads, kernel->name);
    if (name == FastCpuBackend::kName) return std::make_unique<FastCpuBackend>(cpu_threads);
    std::lock_guard lock(registry_mutex);
    return find_entry(name)->create();
}

}  // namespace kvw
