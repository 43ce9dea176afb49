#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/gguf_file.h"

namespace kvw {

// Reading the small GGUF sidecars of float weights that sit beside a model: the SmartKV gate
// (core/policy/gate/gate_file.h) and a learned GistNet (core/gist/gist_file.h). Every fault is
// a ModelError naming the file and the key or the tensor.

// The metadata `key` as a count in [1, max]: BadMetadata outside, MissingMetadata when absent.
uint32_t sidecar_count(const GgufFile& file, const char* key, uint32_t max);

// The tensor's values as floats, after checking that it exists (MissingTensor, saying that
// `owner` needs it: "the gate", "the gist net"), is F32 or F16 and has exactly `shape`
// (ShapeMismatch) and that every value is finite (NonFiniteWeight).
std::vector<float> sidecar_floats(const GgufFile& file, const std::string& name,
                                  const std::vector<uint64_t>& shape, const char* owner);

// A tensor in the file that the metadata does not account for means the two disagree: refused
// (ShapeMismatch naming it, with `why`) rather than silently ignored.
void refuse_unexpected_tensors(const GgufFile& file, const std::vector<std::string>& expected,
                               const std::string& why);

std::string gguf_shape_text(const std::vector<uint64_t>& shape);  // "[8, 16]"

}  // namespace kvw
