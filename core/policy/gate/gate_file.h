#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/gguf_types.h"
#include "core/model/mapped_file.h"
#include "core/policy/gate/gate_mlp.h"

namespace kvw {

// The gate's GGUF sidecar, `NAME.gate.gguf` (docs/ARCHITECTURE.md §12): metadata
// `general.architecture` = "kvw-gate", `gate.layer_count`, `gate.input_dim`, `gate.hidden`,
// `gate.depth`, `gate.key_kind` ("pre-rope" / "post-rope"), and per model layer L and fully
// connected layer N the F32 or F16 tensors `gate.L.fcN.weight` (GGUF shape [in, out]) and
// `gate.L.fcN.bias` ([out]).
inline constexpr const char* kGateArchitecture = "kvw-gate";

// Every fault is a ModelError naming the file and, for a tensor, the tensor: BadMetadata
// (wrong architecture, a size out of range, an unknown key kind), MissingMetadata,
// MissingTensor, ShapeMismatch (type not F32 or F16, shape not the one the metadata gives, a tensor
// that is not part of the gate), NonFiniteWeight.
GateMlp read_gate(std::shared_ptr<const ByteSource> source);
GateMlp read_gate_file(const std::string& path);

// Every tensor as `type`, F32 or F16 (std::invalid_argument otherwise); F16 halves the file and
// is read back widened to float.
std::vector<uint8_t> gate_to_bytes(const GateMlp& gate, GgufType type = GgufType::F32);
// std::runtime_error on I/O failure.
void write_gate_file(const GateMlp& gate, const std::string& path, GgufType type = GgufType::F32);

// The sidecar's tensor names.
std::string gate_tensor_name(int layer, int fc, const char* part);  // part: "weight", "bias"

}  // namespace kvw
