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
std::vector<std::string> backend_names();  // "cpu" first, then the registered ones
bool backend_available(std::string_view name, std::string& why);

// "cpu", a registered name, or "auto" (the first available accelerator, else the CPU with a log
// line saying why). Throws std::invalid_argument for an unknown or unavailable name.
std::unique_ptr<Backend> create_backend(std::string_view name);

}  // namespace kvw
