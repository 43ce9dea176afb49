#include "core/model/builtin_models.h"

#include <cstdlib>
#include <string>

#include "core/model/model_error.h"

namespace kvw {

namespace {

constexpr BuiltinModel kBuiltinModels[] = {
    // resources/models/README.md is its card.
    {"default", "kjv-llama.gguf", "a small Llama trained on the King James Bible"},
};

// The running program's folder, from /proc (core is Linux-only, like its CPU backend).
std::filesystem::path program_dir() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : self.parent_path();
}

}  // namespace

std::span<const BuiltinModel> builtin_models() { return kBuiltinModels; }

std::vector<std::filesystem::path> builtin_model_dirs() {
    std::vector<std::filesystem::path> dirs;
    if (const char* override_dir = std::getenv("KVW_MODELS_DIR"); override_dir && *override_dir)
        dirs.emplace_back(override_dir);
    if (const std::filesystem::path bin = program_dir(); !bin.empty())
        dirs.push_back(bin.parent_path() / "share" / "kv-workbench" / "models");
    dirs.emplace_back(KVW_SOURCE_MODELS_DIR);  // set for this file only (core/CMakeLists.txt)
    return dirs;
}

std::filesystem::path find_builtin_model(std::string_view name) {
    const std::string spec = "builtin:" + std::string(name);
    const BuiltinModel* model = nullptr;
    std::string known;
    for (const BuiltinModel& m : builtin_models()) {
        if (m.name == name) model = &m;
        known += (known.empty() ? "builtin:" : ", builtin:") + std::string(m.name);
    }
    if (!model)
        throw ModelError(ModelErrorKind::CannotOpen, spec,
                         "no such built-in model (known: " + known + ")");
    std::string looked;
    for (const std::filesystem::path& dir : builtin_model_dirs()) {
        const std::filesystem::path file = dir / model->file;
        std::error_code ec;
        if (std::filesystem::is_regular_file(file, ec)) return file;
        looked += "\n  " + file.string();
    }
    throw ModelError(ModelErrorKind::CannotOpen, spec,
                     "the model file is not in any of the places looked at (set KVW_MODELS_DIR "
                     "to the folder that holds " +
                         std::string(model->file) + "):" + looked);
}

}  // namespace kvw
