#pragma once
// Picking a kernel from one of the CPU backend's tables (matmul_kernels.h, fast_kernels.h):
// entries with a `name` and a `cpu_has()`, fastest first.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvw::cpu {

// The entry named `wanted`, or the first this CPU runs when `wanted` is empty. Throws
// std::invalid_argument naming `what` when no entry has that name, when this CPU cannot run
// it, or when it runs none.
template <class Kernel>
const Kernel& choose_kernel(std::span<const Kernel> table, std::string_view wanted,
                            std::string_view what) {
    for (const Kernel& k : table) {
        if (!wanted.empty() && k.name != wanted) continue;
        if (k.cpu_has()) return k;
        if (!wanted.empty())
            throw std::invalid_argument(std::string(what) + ": this CPU cannot run the " +
                                        std::string(wanted) + " kernel");
    }
    if (wanted.empty())
        throw std::invalid_argument(std::string(what) + ": this CPU runs none of its kernels");
    throw std::invalid_argument(std::string(what) + ": no kernel named " + std::string(wanted));
}

}  // namespace kvw::cpu
