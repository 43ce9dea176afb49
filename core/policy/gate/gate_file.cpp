#include "core/policy/gate/gate_file.h"

#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include "core/math/half.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_writer.h"
#include "core/model/model_error.h"

namespace kvw {

namespace {

// Far above any gate this project trains and small enough that sizes multiply in 64 bits.
constexpr uint32_t kMaxLayers = 4096;
constexpr uint32_t kMaxInput = 1u << 16;
constexpr uint32_t kMaxHidden = 4096;
constexpr uint32_t kMaxDepth = 16;

uint32_t bounded(const GgufFile& file, const char* key, uint32_t max) {
    const uint32_t v = file.get_u32(key);
    if (v < 1 || v > max)
        file.bad_metadata(key, std::to_string(v) + " is outside [1, " + std::to_string(max) + "]");
    return v;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// The tensor's values as floats, after checking it exists, is F32 or F16, has exactly `shape`
// and is finite.
std::vector<float> read_tensor(const GgufFile& file, const std::string& name,
                               const std::vector<uint64_t>& shape) {
    const GgufTensorInfo* info = file.find_tensor(name);
    if (!info)
        throw ModelError(ModelErrorKind::MissingTensor, file.file_name(), "the gate needs it",
                         std::nullopt, name);
    if (info->type != GgufType::F32 && info->type != GgufType::F16)
        throw ModelError(
            ModelErrorKind::ShapeMismatch, file.file_name(),
            "type " + std::string(gguf_type_name(info->type)) + "; the gate reads F32 or F16",
            info->info_offset, name);
    if (info->shape != shape)
        throw ModelError(ModelErrorKind::ShapeMismatch, file.file_name(),
                         "shape " + shape_text(info->shape) + ", expected " + shape_text(shape),
                         info->info_offset, name);
    const std::span<const uint8_t> bytes = file.tensor_bytes(*info);
    std::vector<float> values(info->n_elements());
    if (info->type == GgufType::F32) {
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    } else {
        for (size_t i = 0; i < values.size(); ++i) {
            uint16_t h;
            std::memcpy(&h, bytes.data() + 2 * i, 2);
            values[i] = fp16_to_float(h);
        }
    }
    for (size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw ModelError(ModelErrorKind::NonFiniteWeight, file.file_name(),
                             "element " + std::to_string(i) + " is not finite", info->info_offset,
                             name);
    return values;
}

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
    shape.n_layers = int(bounded(file, "gate.layer_count", kMaxLayers));
    shape.input_dim = int(bounded(file, "gate.input_dim", kMaxInput));
    shape.hidden = int(bounded(file, "gate.hidden", kMaxHidden));
    shape.depth = int(bounded(file, "gate.depth", kMaxDepth));
    GateKeyKind kind;
    try {
        kind = gate_key_kind_from_name(file.get_string("gate.key_kind"));
    } catch (const std::invalid_argument& e) {
        file.bad_metadata("gate.key_kind", e.what());
    }

    std::set<std::string> expected;
    std::vector<std::vector<GateDense>> layers(size_t(shape.n_layers));
    for (int l = 0; l < shape.n_layers; ++l) {
        for (int i = 0; i < shape.depth; ++i) {
            GateDense d;
            d.in = shape.fc_in(i);
            d.out = shape.fc_out(i);
            const std::string w = gate_tensor_name(l, i, "weight");
            const std::string b = gate_tensor_name(l, i, "bias");
            d.weight = read_tensor(file, w, {uint64_t(d.in), uint64_t(d.out)});
            d.bias = read_tensor(file, b, {uint64_t(d.out)});
            expected.insert(w);
            expected.insert(b);
            layers[size_t(l)].push_back(std::move(d));
        }
    }
    // A tensor the metadata does not account for means the metadata and the weights disagree
    // (a gate of 5 layers labelled 4): refused rather than silently ignored.
    for (const GgufTensorInfo& t : file.tensors())
        if (!expected.contains(t.name))
            throw ModelError(ModelErrorKind::ShapeMismatch, file.file_name(),
                             "not part of a gate of " + std::to_string(shape.n_layers) +
                                 " layers × " + std::to_string(shape.depth) + " fc layers",
                             t.info_offset, t.name);
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
