#include "core/model/model.h"

namespace kvw {

void check_model_files(const Model& model) {
    for (const std::shared_ptr<const ByteSource>& file : model.files) file->check_readable();
}

}  // namespace kvw
