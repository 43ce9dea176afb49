#include "core/model/model_loader.h"

#include <filesystem>

#include "core/model/builtin_models.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/hf_model_loader.h"
#include "core/model/model_error.h"
#include "core/model/synthetic_model.h"
#include "core/model/weight_file.h"

namespace kvw {

std::shared_ptr<const Model> load_model(const std::string& spec) {
    constexpr std::string_view kSynthetic = "synthetic:";
    constexpr std::string_view kBuiltin = "builtin:";
    if (spec.rfind(kSynthetic, 0) == 0)
        return load_gguf_model(synthetic_source(std::string_view(spec).substr(kSynthetic.size())));
    if (spec.rfind(kBuiltin, 0) == 0) {
        const std::filesystem::path file =
            find_builtin_model(std::string_view(spec).substr(kBuiltin.size()));
        std::shared_ptr<Model> model = load_gguf_model(open_weight_file(file.string()));
        // Views and traces name the model as the user did; the load's log line has the path.
        model->source = spec;
        return model;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(spec, ec)) return load_hf_model(spec);
    if (!std::filesystem::exists(spec, ec))
        throw ModelError(ModelErrorKind::CannotOpen, spec,
                         "no such file or folder (expected a .gguf file, a Hugging Face folder, "
                         "builtin:default or synthetic:tiny)");
    return load_gguf_model(open_weight_file(spec));
}

}  // namespace kvw
