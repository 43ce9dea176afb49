#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/mapped_file.h"
#include "core/policy/gate/gate_mlp.h"

namespace kvw {

// How a lifespan is measured (docs/ARCHITECTURE.md §12): a token born at tick b is watched at
// ticks b+1 .. b+horizon; its lifespan at a layer is the largest age a in [1, horizon] at which
// its attention share there (attention_share: 1 = a uniform row's share) was >= threshold, or
// 0 when it never was.
// The threshold is an attention share relative to a uniform row's: a row holding all of it in a
// context of n rows has share n, so no threshold above the longest context means anything.
inline constexpr double kMaxLifespanThreshold = 1e6;

struct LifespanOptions {
    float threshold = 2.0f;
    int horizon = 64;
};

// Recorded lifespans, the training data of the gate: per model layer, in birth order, each
// token's key at that layer and its lifespan in ticks.
struct LifespanRecords {
    int n_layers = 0;
    int key_dim = 0;
    GateKeyKind key_kind = GateKeyKind::PreRope;
    LifespanOptions options;
    struct Layer {
        std::vector<float> keys;       // [count][key_dim]
        std::vector<float> lifespans;  // [count], whole ticks in [0, horizon]
        size_t count() const { return lifespans.size(); }
    };
    std::vector<Layer> layers;
};

// GGUF: `general.architecture` = "kvw-lifespans", `lifespans.layer_count`, `lifespans.key_dim`,
// `lifespans.key_kind`, `lifespans.threshold`, `lifespans.horizon`; per layer L the F32 tensors
// `lifespans.L.keys` ([key_dim, count]) and `lifespans.L.ticks` ([count]). A layer with no
// records has no tensors. Read faults are ModelErrors naming the file and the tensor: sizes out
// of range, shapes that disagree, a lifespan that is not a whole number in [0, horizon], a key
// that is not finite.
inline constexpr const char* kLifespansArchitecture = "kvw-lifespans";
void write_lifespans_file(const LifespanRecords& records, const std::string& path);
LifespanRecords read_lifespans(std::shared_ptr<const ByteSource> source);
LifespanRecords read_lifespans_file(const std::string& path);

}  // namespace kvw
