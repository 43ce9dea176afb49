#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sweep_config.h"

// An evaluation grid written down before it runs (docs/ARCHITECTURE.md §12, "Sweeps"): every
// cell (model, text, configuration) with its index, and what a runner needs to score one. The
// plan is the one record a local run, a Slurm array task and the merge read, so they agree on
// what cell N is.
namespace kvw {

struct PlanModel {
    std::string spec;     // as given to --model: a path, builtin:NAME, synthetic:NAME
    std::string hash;     // XXH64 of its bytes (hash_hex): a shard of another model is refused
    int max_context = 0;  // the model's context, which --ctx may not pass
    bool operator==(const PlanModel&) const = default;
};

struct SweepCell {
    int64_t index = 0;
    int model = 0;  // into SweepPlan::models
    int text = 0;   // into SweepPlan::texts
    SweepConfig config;
    bool operator==(const SweepCell&) const = default;
};

struct SweepPlan {
    std::string program;  // the kvw version that wrote it
    std::string backend = "cpu";
    int ctx = 256;            // tokens per chunk, as kvw sweep's --ctx
    uint64_t seed = 0;        // the random policy's seed
    std::string gate;         // smartkv's gate sidecar; empty: the one beside the model
    int cells_per_shard = 1;  // an array task's share
    std::vector<PlanModel> models;
    std::vector<std::string> texts;  // paths
    std::vector<SweepCell> cells;    // cells[i].index == i

    int shards() const;
    // [first, last) cell indices of shard `shard`.
    std::pair<int64_t, int64_t> shard_cells(int shard) const;
    // "cell 7 (model M, text T, h2o S 4 B 8 W 8, ...)": how errors and logs name a cell.
    std::string name(const SweepCell& cell) const;
};

// What the grid is the product of. Policies in the order given; "full" among them is the full
// cache, which takes one configuration per storage pair (its budgets, layout and RoPE are not
// read).
struct SweepAxes {
    std::vector<std::string> policies;
    std::vector<int> sinks, budgets, windows;
    std::vector<KvType> k_types, v_types;
    std::vector<CacheLayout> layouts;
    std::vector<RopePolicy> ropes;
};
// Every configuration: policy-major, then sink, window, budget, K type, V type, layout, RoPE.
std::vector<SweepConfig> grid_configs(const SweepAxes& axes);
// Every (model, text, configuration), model-major then text: indices 0 .. n - 1.
std::vector<SweepCell> grid_cells(int models, int texts, const std::vector<SweepConfig>& configs);

// Each cell can run: its policy is in the table or "full", its budget is valid and S + B + W
// rows fit the chunk of ctx tokens, ctx fits its model's context. SweepError naming the first
// cell that cannot, so nothing is submitted for a grid that would fail half-way.
void check_cells(const SweepPlan& plan);

// plan.json, and back; SweepError naming the key for a file that is not a plan.
std::string plan_json(const SweepPlan& plan);
SweepPlan plan_from_json(const std::string& text, const std::string& path);
// The plan's identity (XXH64 of its JSON, hash_hex): every shard file records it.
std::string plan_id(const SweepPlan& plan);

}  // namespace kvw
