#include "core/policy/gate/lifespan_records.h"

#include <cmath>
#include <cstring>
#include <set>

#include "core/model/gguf_file.h"
#include "core/model/gguf_writer.h"
#include "core/model/model_error.h"
#include "core/model/model_shape.h"

namespace kvw {

namespace {

constexpr uint32_t kMaxKeyDim = 1u << 16;
constexpr uint32_t kMaxHorizon = 1u << 24;

std::string keys_name(int layer) { return "lifespans." + std::to_string(layer) + ".keys"; }
std::string ticks_name(int layer) { return "lifespans." + std::to_string(layer) + ".ticks"; }

std::vector<uint8_t> float_bytes(const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

[[noreturn]] void bad_tensor(const GgufFile& file, const GgufTensorInfo& t,
                             const std::string& why) {
    throw ModelError(ModelErrorKind::ShapeMismatch, file.file_name(), why, t.info_offset, t.name);
}

std::vector<float> floats_of(const GgufFile& file, const GgufTensorInfo& t, size_t rank) {
    if (t.type != GgufType::F32) bad_tensor(file, t, "type is not F32");
    if (t.shape.size() != rank) bad_tensor(file, t, "rank " + std::to_string(t.shape.size()));
    const std::span<const uint8_t> bytes = file.tensor_bytes(t);
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
}

}  // namespace

void write_lifespans_file(const LifespanRecords& r, const std::string& path) {
    GgufWriter w;
    w.add("general.architecture", std::string(kLifespansArchitecture));
    w.add("lifespans.layer_count", uint32_t(r.n_layers));
    w.add("lifespans.key_dim", uint32_t(r.key_dim));
    w.add("lifespans.key_kind", std::string(gate_key_kind_name(r.key_kind)));
    w.add("lifespans.threshold", r.options.threshold);
    w.add("lifespans.horizon", uint32_t(r.options.horizon));
    for (int l = 0; l < r.n_layers; ++l) {
        const LifespanRecords::Layer& layer = r.layers[size_t(l)];
        if (layer.count() == 0) continue;
        w.add_tensor(keys_name(l), GgufType::F32, {uint64_t(r.key_dim), uint64_t(layer.count())},
                     float_bytes(layer.keys));
        w.add_tensor(ticks_name(l), GgufType::F32, {uint64_t(layer.count())},
                     float_bytes(layer.lifespans));
    }
    w.write_file(path);
}

LifespanRecords read_lifespans(std::shared_ptr<const ByteSource> source) {
    const GgufFile file(std::move(source));
    const std::string& arch = file.get_string("general.architecture");
    if (arch != kLifespansArchitecture)
        file.bad_metadata("general.architecture", "'" + arch + "', recorded lifespans say '" +
                                                      kLifespansArchitecture + "'");
    LifespanRecords r;
    const auto bounded = [&](const char* key, uint32_t max) {
        const uint32_t v = file.get_u32(key);
        if (v < 1 || v > max)
            file.bad_metadata(key,
                              std::to_string(v) + " is outside [1, " + std::to_string(max) + "]");
        return int(v);
    };
    r.n_layers = bounded("lifespans.layer_count", uint32_t(ModelShapeLimits::kMaxLayers));
    r.key_dim = bounded("lifespans.key_dim", kMaxKeyDim);
    r.options.horizon = bounded("lifespans.horizon", kMaxHorizon);
    r.options.threshold = file.get_f32("lifespans.threshold");
    if (!std::isfinite(r.options.threshold)) file.bad_metadata("lifespans.threshold", "not finite");
    try {
        r.key_kind = gate_key_kind_from_name(file.get_string("lifespans.key_kind"));
    } catch (const std::invalid_argument& e) {
        file.bad_metadata("lifespans.key_kind", e.what());
    }
    r.layers.resize(size_t(r.n_layers));
    std::set<std::string> expected;
    for (int l = 0; l < r.n_layers; ++l) {
        const GgufTensorInfo* keys = file.find_tensor(keys_name(l));
        const GgufTensorInfo* ticks = file.find_tensor(ticks_name(l));
        if (!keys && !ticks) continue;
        if (!keys || !ticks)
            throw ModelError(ModelErrorKind::MissingTensor, file.file_name(),
                             "a layer's keys and ticks come together", std::nullopt,
                             keys ? ticks_name(l) : keys_name(l));
        expected.insert(keys->name);
        expected.insert(ticks->name);
        LifespanRecords::Layer& layer = r.layers[size_t(l)];
        layer.lifespans = floats_of(file, *ticks, 1);
        layer.keys = floats_of(file, *keys, 2);
        if (keys->shape[0] != uint64_t(r.key_dim) || keys->shape[1] != ticks->shape[0])
            bad_tensor(file, *keys,
                       "shape [" + std::to_string(keys->shape[0]) + ", " +
                           std::to_string(keys->shape[1]) + "], expected [" +
                           std::to_string(r.key_dim) + ", " + std::to_string(ticks->shape[0]) +
                           "]");
        for (size_t i = 0; i < layer.count(); ++i) {
            const float t = layer.lifespans[i];
            if (!(t >= 0.0f && t <= float(r.options.horizon) && t == std::floor(t)))
                bad_tensor(file, *ticks,
                           "record " + std::to_string(i) + " has lifespan " + std::to_string(t) +
                               ", not a whole number in [0, " + std::to_string(r.options.horizon) +
                               "]");
        }
        for (size_t i = 0; i < layer.keys.size(); ++i)
            if (!std::isfinite(layer.keys[i]))
                throw ModelError(ModelErrorKind::NonFiniteWeight, file.file_name(),
                                 "record " + std::to_string(i / size_t(r.key_dim)),
                                 keys->info_offset, keys->name);
    }
    for (const GgufTensorInfo& t : file.tensors())
        if (!expected.contains(t.name)) bad_tensor(file, t, "not a tensor of recorded lifespans");
    return r;
}

LifespanRecords read_lifespans_file(const std::string& path) {
    return read_lifespans(map_file(path));
}

}  // namespace kvw
