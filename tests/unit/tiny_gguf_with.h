#pragma once
// The synthetic tiny model rewritten with one metadata value changed, for tests of what the
// GGUF loader does with a bad value.
#include <memory>
#include <span>
#include <string>

#include "core/model/gguf_file.h"
#include "core/model/gguf_writer.h"
#include "core/model/mapped_file.h"
#include "core/model/synthetic_model.h"

namespace kvw::test {

// synthetic:tiny with metadata `key` set to `value` (added when absent), named `name`.
inline std::shared_ptr<const ByteSource> tiny_gguf_with(const std::string& key,
                                                        const GgufValue& value,
                                                        const std::string& name) {
    const GgufFile tiny(synthetic_source("tiny"));
    GgufWriter writer;
    bool replaced = false;
    for (const auto& [k, v] : tiny.metadata()) {
        writer.add(k, k == key ? value : v);
        replaced = replaced || k == key;
    }
    if (!replaced) writer.add(key, value);
    for (const GgufTensorInfo& t : tiny.tensors()) {
        const std::span<const uint8_t> bytes = tiny.tensor_bytes(t);
        writer.add_tensor(t.name, t.type, t.shape, {bytes.begin(), bytes.end()});
    }
    return bytes_in_memory(writer.to_bytes(), name);
}

}  // namespace kvw::test
