#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/sweep/sweep_plan.h"

// kvw sweep --status DIR: which shards are done, queued or running (Slurm's word), failed
// (with the line of its log that says why) or not started; what --resume runs again.
namespace kvw::cli {

enum class ShardState { Done, Queued, Failed, NotStarted };

struct ShardStatus {
    int shard = 0;
    ShardState state = ShardState::NotStarted;
    std::string detail;  // Slurm's state, the failure's log line
};

std::vector<ShardStatus> shard_statuses(const std::filesystem::path& dir, const SweepPlan& plan);
// One line per shard that is not done, then a count: "shard 3: failed (CANCELLED by 0):
// slurmstepd: error: *** JOB 14 ... CANCELLED ...".
std::string status_report(const SweepPlan& plan, const std::vector<ShardStatus>& statuses);

// The line of a log that says why it ended: the first that mentions an error (kvw's own
// "kvw sweep: error: ...", Slurm's "*** JOB 12 ... CANCELLED ***", before what followed from
// it), else the last that is not empty.
std::string failure_line(const std::filesystem::path& log);

}  // namespace kvw::cli
