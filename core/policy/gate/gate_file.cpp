#include "core/policy/gate/gate_file.h"

#include <cstring>
#include <stdexcept>

#include "core/math/half.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_sidecar.h"
#include "core/model/gguf_writer.h"
#include "core/model/model_error.h"
#include "core/model/model_shape.h"

namespace kvw {

namespace {

constexpr uint32_t kMaxInput = 1u << 16;
constexpr uint32_t kMaxHidden = 4096;
constexpr uint32_t kMaxDepth = 16;

// The values in the file's encoding of `type` (F32 or F16).
std::vector<uint8_t> encoded(const std::vector<float>& values, GgufType type) {
    if (type == GgufType::F32) {
        std::vector<uint8_t> bytes(values.size() * sizeof(float));
        std::memcpy(bytes.data(), values.data(), bytes.size());
        return bytes;
    }
    std::vector<uint8_t> bytes(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t h = float_to_fp16(values[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return bytes;
}

}  // namespace

std::string gate_tensor_name(int layer, int fc, const char* part) {
    return "gate." + std::to_string(layer) + ".fc" + std::to_string(fc) + "." + part;
}

GateMlp read_gate(std::shared_ptr<const ByteSource> source) {
    const GgufFile file(std::move(source));
    const std::string& arch = file.get_string("general.architecture");
    if (arch != kGateArchitecture)
        file.bad_metadata("general.architecture",
                          "'" + arch + "', a gate sidecar says '" + kGateArchitecture + "'");
    GateShape shape;
    // A gate serves a model: its layers are bounded as a model's are.
    shape.n_layers =
        int(sidecar_count(file, "gate.layer_count", uint32_t(ModelShapeLimits::kMaxLayers)));
    shape.input_dim = int(sidecar_count(file, "gate.input_dim", kMaxInput));
    shape.hidden = int(sidecar_count(file, "gate.hidden", kMaxHidden));
    shape.depth = int(sidecar_count(file, "gate.depth", kMaxDepth));
    GateKeyKind kind;
    try {
        kind = gate_key_kind_from_name(file.get_string("gate.key_kind"));
    } catch (const std::invalid_argument& e) {
        file.bad_metadata("gate.key_kind", e.what());
    }

    std::vector<std::string> expected;
    std::vector<std::vector<GateDense>> layers(size_t(shape.n_layers));
    for (int l = 0; l < shape.n_layers; ++l) {
        for (int i = 0; i < shape.depth; ++i) {
            GateDense d;
            d.in = shape.fc_in(i);
            d.out = shape.fc_out(i);
            const std::string w = gate_tensor_name(l, i, "weight");
            const std::string b = gate_tensor_name(l, i, "bias");
            d.weight = sidecar_floats(file, w, {uint64_t(d.in), uint64_t(d.out)}, "the gate");
            d.bias = sidecar_floats(file, b, {uint64_t(d.out)}, "the gate");
            expected.push_back(w);
            expected.push_back(b);
            layers[size_t(l)].push_back(std::move(d));
        }
    }
    refuse_unexpected_tensors(file, expected,
                              "not part of a gate of " + std::to_string(shape.n_layers) +
                                  " layers × " + std::to_string(shape.depth) + " fc layers");
    return GateMlp(shape, kind, std::move(layers));
}

GateMlp read_gate_file(const std::string& path) { return read_gate(map_file(path)); }

namespace {

void check_type(GgufType type) {
    if (type != GgufType::F32 && type != GgufType::F16)
        throw std::invalid_argument("a gate is written as F32 or F16, not " +
                                    std::string(gguf_type_name(type)));
}

GgufWriter gate_writer(const GateMlp& gate, GgufType type) {
    const GateShape& s = gate.shape();
    GgufWriter w;
    w.add("general.architecture", std::string(kGateArchitecture));
    w.add("gate.layer_count", uint32_t(s.n_layers));
    w.add("gate.input_dim", uint32_t(s.input_dim));
    w.add("gate.hidden", uint32_t(s.hidden));
    w.add("gate.depth", uint32_t(s.depth));
    w.add("gate.key_kind", std::string(gate_key_kind_name(gate.key_kind())));
    w.add("gate.activation", std::string("relu"));
    w.add("gate.output", std::string("log4(1 + lifespan)"));
    for (int l = 0; l < s.n_layers; ++l) {
        for (int i = 0; i < s.depth; ++i) {
            const GateDense& d = gate.layer(l)[size_t(i)];
            w.add_tensor(gate_tensor_name(l, i, "weight"), type, {uint64_t(d.in), uint64_t(d.out)},
                         encoded(d.weight, type));
            w.add_tensor(gate_tensor_name(l, i, "bias"), type, {uint64_t(d.out)},
                         encoded(d.bias, type));
        }
    }
    return w;
}

}  // namespace

std::vector<uint8_t> gate_to_bytes(const GateMlp& gate, GgufType type) {
    check_type(type);
    return gate_writer(gate, type).to_bytes();
}

void write_gate_file(const GateMlp& gate, const std::string& path, GgufType type) {
    check_type(type);
    gate_writer(gate, type).write_file(path);
}

}  // namespace kvw
