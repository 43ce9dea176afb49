#include "core/model/model_error.h"

namespace kvw {
namespace {

std::string compose_message(ModelErrorKind kind, const std::string& file, const std::string& detail,
                            const std::optional<uint64_t>& offset, const std::string& tensor) {
    std::string message = std::string(model_error_kind_name(kind)) + ": " + file;
    if (offset) message += " at offset " + std::to_string(*offset);
    if (!tensor.empty()) message += " (tensor '" + tensor + "')";
    if (!detail.empty()) message += ": " + detail;
    return message;
}

}  // namespace

const char* model_error_kind_name(ModelErrorKind kind) {
    switch (kind) {
        case ModelErrorKind::CannotOpen: return "cannot open";
        case ModelErrorKind::BadMagic: return "bad magic";
        case ModelErrorKind::UnsupportedVersion: return "unsupported version";
        case ModelErrorKind::Truncated: return "truncated file";
        case ModelErrorKind::BadMetadata: return "bad metadata";
        case ModelErrorKind::MissingMetadata: return "missing metadata";
        case ModelErrorKind::UnknownTensorType: return "unknown tensor type";
        case ModelErrorKind::TensorDataPastEnd: return "tensor data past end of file";
        case ModelErrorKind::ShapeMismatch: return "shape contradicts config";
        case ModelErrorKind::MissingTensor: return "missing tensor";
        case ModelErrorKind::VocabMismatch: return "vocabulary size mismatch";
        case ModelErrorKind::NonFiniteWeight: return "non-finite weight";
        case ModelErrorKind::BadTokenizer: return "bad tokenizer";
    }
    return "model error";
}

ModelError::ModelError(ModelErrorKind kind, std::string file, std::string detail,
                       std::optional<uint64_t> offset, std::string tensor)
    : std::runtime_error(compose_message(kind, file, detail, offset, tensor)),
      kind_(kind),
      file_(std::move(file)),
      detail_(std::move(detail)),
      offset_(offset),
      tensor_(std::move(tensor)) {}

}  // namespace kvw
