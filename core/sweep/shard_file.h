#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "sweep_plan.h"

// The results of one shard of a plan: DIR/shards/shard-NNNNN.json, written whole under a
// temporary name and renamed (write_file_atomically), so an array task killed half-way leaves
// either nothing or a complete file under the shard's name. Only that name is ever read: a
// temporary file beside it is not a result.
namespace kvw {

// What one cell measured.
struct CellResult {
    int64_t index = 0;
    double nll = 0;      // summed over the scored tokens of every chunk, in chunk order
    int64_t scored = 0;  // tokens scored
    // [layer]: the ledger ids the cache holds after the text's last tick, for the overlap
    // between policies; empty for the full cache, which holds every one.
    std::vector<std::vector<int64_t>> kept;
    double seconds = 0;  // wall clock; never part of the tables (they must not vary)
    bool operator==(const CellResult&) const = default;
};

std::filesystem::path shard_path(const std::filesystem::path& dir, int shard);

// `results` must be the shard's cells in order.
void write_shard(const std::filesystem::path& dir, const SweepPlan& plan, int shard,
                 const std::vector<CellResult>& results);
// The shard's results; nullopt when its file is not there (not run, running, or killed before
// the rename). SweepError when a file is there but is not this plan's shard.
std::optional<std::vector<CellResult>> read_shard(const std::filesystem::path& dir,
                                                  const SweepPlan& plan, int shard);
// The shards that have no file yet, in order.
std::vector<int> missing_shards(const std::filesystem::path& dir, const SweepPlan& plan);
// Every cell's result, in plan order; SweepError naming the missing shards.
std::vector<CellResult> read_all_cells(const std::filesystem::path& dir, const SweepPlan& plan);

}  // namespace kvw
