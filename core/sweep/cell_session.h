#pragma once
#include <cstdint>
#include <span>

#include "core/session/session.h"
#include "sweep_plan.h"

// How a cell of a sweep runs, written once for the shard runner (app/cli/sweep/shard_runner.cpp)
// and the window, which opens a cell as a live session at its start (File ▸ Open sweep
// results).
namespace kvw {

// The f32 full cache is scored by a plain forward over every row (FullCacheScorer, as the
// one-text sweep's `full` row); every other cell through a Session.
bool scored_without_session(const SweepConfig& config);

// The Session a cell runs through: the plan's model, backend and chunk (capacity = ctx), the
// policy and its budgets (the quantised full cache: `manual`, which never edits), the seed, the
// gate for smartkv, the storage types, the layout and the RoPE policy (the full cache keeps
// every row at its position: contiguous, original).
SessionOptions cell_session_options(const SweepPlan& plan, const SweepCell& cell);

// The first chunk's prompt, as the scorer prefills it (SessionScorer): its first ctx / 2 + 1
// tokens, BOS first.
std::span<const int32_t> first_prompt(std::span<const int32_t> tokens, int ctx);

}  // namespace kvw
