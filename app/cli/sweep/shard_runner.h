#pragma once
#include <filesystem>

#include "core/sweep/shard_file.h"
#include "core/sweep/sweep_plan.h"

// What one array task or local process of a sweep does (`kvw sweep --run DIR --shard I`):
// score the shard's cells one after the other and write their results as one file, atomically.
namespace kvw::cli {

void run_shard(const std::filesystem::path& dir, const SweepPlan& plan, int shard);

}  // namespace kvw::cli
