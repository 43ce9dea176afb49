#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/policy/gate/gate_mlp.h"
#include "core/policy/gate/lifespan_records.h"

namespace kvw {

struct GateTrainOptions {
    int hidden = 256;
    int depth = 4;
    int epochs = 8;
    int batch = 32;
    float learning_rate = 1e-3f;  // Adam (β 0.9 / 0.999, ε 1e-8)
    uint64_t seed = 1;            // initial weights and the order of each epoch
    // The last fraction of each file's records of a layer (the latest births) is held out.
    double held_out = 0.2;
};

// Per model layer: how many records trained and were held out, and the mean squared error of
// the target log4(1 + lifespan) on the held-out records for the trained gate and for a constant
// predictor (the training records' mean).
struct GateLayerReport {
    size_t train = 0;
    size_t held_out = 0;
    double train_mean = 0.0;
    double constant_loss = 0.0;
    double gate_loss = 0.0;
};

struct GateTraining {
    GateMlp gate;
    std::vector<GateLayerReport> layers;
};

// Trains one MLP per model layer on the records with Adam on the mean squared error
// (docs/ARCHITECTURE.md §12). Deterministic: one thread, fixed summation order, the seed gives
// the initial weights and every epoch's order. The inputs are standardised per feature with
// the training records' mean and deviation, folded into the first layer afterwards, so the
// saved gate reads raw keys. `data` must agree on layers, key width and key kind;
// PolicyInputError names the file (`names[i]`) that does not, or a layer without training or
// held-out records.
GateTraining train_gate(std::span<const LifespanRecords> data, std::span<const std::string> names,
                        const GateTrainOptions& options);

// log4(1 + lifespan): what the gate predicts.
double lifespan_target(float lifespan_ticks);

}  // namespace kvw
