#pragma once
#include <filesystem>
#include <optional>
#include <string_view>

namespace kvw {

// The gate that ships beside a model (docs/ARCHITECTURE.md §12): for `builtin:NAME` or a file
// `X.gguf`, the file `X.gate.gguf` in the same folder, when it exists. Nothing for other
// specs (synthetic models, Hugging Face folders) or when there is no such file.
std::optional<std::filesystem::path> gate_beside_model(std::string_view model_spec);

}  // namespace kvw
