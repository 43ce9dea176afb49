#include "core/policy/gate/gate_sidecar.h"

#include <string>

#include "core/model/builtin_models.h"
#include "core/model/model_error.h"

namespace kvw {

std::optional<std::filesystem::path> gate_beside_model(std::string_view model_spec) {
    constexpr std::string_view kBuiltin = "builtin:";
    std::filesystem::path model;
    if (model_spec.starts_with(kBuiltin)) {
        try {
            model = find_builtin_model(model_spec.substr(kBuiltin.size()));
        } catch (const ModelError&) {
            return std::nullopt;  // no such model file, so no gate beside it
        }
    } else {
        model = std::filesystem::path(model_spec);
    }
    if (model.extension() != ".gguf") return std::nullopt;
    std::filesystem::path gate = model;
    gate.replace_extension(".gate.gguf");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(gate, ec)) return std::nullopt;
    return gate;
}

}  // namespace kvw
