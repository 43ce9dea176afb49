#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace kvw {

// Every way a model file can be wrong. Each error names the file and, where it applies, the
// byte offset and the tensor, so a user can find the fault with a hex editor.
enum class ModelErrorKind {
    CannotOpen,
    BadMagic,
    UnsupportedVersion,
    Truncated,
    BadMetadata,
    MissingMetadata,
    UnknownTensorType,
    TensorDataPastEnd,
    ShapeMismatch,
    MissingTensor,
    VocabMismatch,
    NonFiniteWeight,
    BadTokenizer,
};

const char* model_error_kind_name(ModelErrorKind kind);

class ModelError : public std::runtime_error {
public:
    ModelError(ModelErrorKind kind, std::string file, std::string detail,
               std::optional<uint64_t> offset = std::nullopt, std::string tensor = {});

    ModelErrorKind kind() const { return kind_; }
    const std::string& file() const { return file_; }
    const std::optional<uint64_t>& offset() const { return offset_; }
    const std::string& tensor() const { return tensor_; }
    const std::string& detail() const { return detail_; }

private:
    ModelErrorKind kind_;
    std::string file_;
    std::string detail_;
    std::optional<uint64_t> offset_;
    std::string tensor_;
};

}  // namespace kvw
