#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/model/gguf_types.h"

namespace kvw {

// Writes GGUF v3 files: metadata of every type, tensors with 32-byte alignment. Used by the
// synthetic model writer and by tests; its output is read back by GgufFile and by the Python
// gguf package.
class GgufWriter {
public:
    void add(const std::string& key, GgufValue value);
    // data holds the tensor in the file's on-disk encoding for `type`; shape is GGUF order
    // (ne[0] is the innermost, contiguous dimension).
    void add_tensor(const std::string& name, GgufType type, std::vector<uint64_t> shape,
                    std::vector<uint8_t> data);
    std::vector<uint8_t> to_bytes() const;
    void write_file(const std::string& path) const;  // write_file_atomically: FileWriteError

private:
    struct PendingTensor {
        std::string name;
        GgufType type;
        std::vector<uint64_t> shape;
        std::vector<uint8_t> data;
    };
    std::vector<std::pair<std::string, GgufValue>> metadata_;
    std::vector<PendingTensor> tensors_;
};

}  // namespace kvw
