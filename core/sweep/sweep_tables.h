#pragma once
#include <string>
#include <vector>

#include "shard_file.h"
#include "sweep_plan.h"

// The tables a sweep's merge writes from every cell's result (docs/ARCHITECTURE.md §12,
// "Sweeps"). Cells are read in plan order and every sum runs in that order, so the bytes depend
// on the plan and the cells' results alone: not on which runner ran them or in what order the
// shards finished.
namespace kvw {

// The perplexity table's header.
inline constexpr const char* kSweepTableHeader =
    "model,policy,sink,budget,window,rows_per_layer,k_type,v_type,layout,rope,ctx,texts,"
    "scored_tokens,mean_nll,perplexity,delta_perplexity,delta_low,delta_high";

// A row per (model, configuration), in plan order: the token-weighted perplexity over the
// texts and its difference to the full cache of the same model and storage types with the
// 95 % bootstrap interval over texts (bootstrap_difference; empty where the grid has no full
// cache to compare with). `cells` are the plan's cells' results in plan order.
std::string perplexity_table(const SweepPlan& plan, const std::vector<CellResult>& cells);

// A row per model and pair of selective policies at the same budgets, storage, layout and
// RoPE: the Jaccard overlap of the rows they keep after each text's last tick (ab_counts),
// and the mean rows kept and kept by both, averaged over texts and layers.
std::string overlap_table(const SweepPlan& plan, const std::vector<CellResult>& cells);

}  // namespace kvw
