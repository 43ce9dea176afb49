#pragma once
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace kvw {

// A model that ships with the project, loaded as "builtin:NAME".
struct BuiltinModel {
    std::string_view name;
    std::string_view file;         // under the models folder (resources/models in the source tree)
    std::string_view description;  // for menus and listings
};

// The one table of built-in models; the first is the embedded default.
std::span<const BuiltinModel> builtin_models();

// The folders searched for a built-in model's file, in order (docs/ARCHITECTURE.md, "Built-in
// models"): $KVW_MODELS_DIR when set, share/kv-workbench/models beside the running program's
// bin/ (an installed copy), then the source tree's resources/models (a build from a clone).
std::vector<std::filesystem::path> builtin_model_dirs();

// The file of builtin:NAME. Throws ModelError(CannotOpen) for an unknown NAME (listing the
// known ones) or when no folder holds the file (naming every place looked at).
std::filesystem::path find_builtin_model(std::string_view name);

}  // namespace kvw
