#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/sweep/sweep_plan.h"

// kvw sweep --slurm: the plan's shards as a Slurm array job and the merge as a job that waits
// for it (docs/ARCHITECTURE.md §12, "Sweeps"). Slurm does the scheduling, throttling, GPU
// binding and requeueing; kvw only writes the scripts, submits them with sbatch and reads
// squeue / sacct back.
namespace kvw::cli {

struct SlurmOptions {
    int throttle = 0;                 // at most this many array tasks at once; 0: Slurm's limit
    std::vector<std::string> sbatch;  // passed through to both sbatch calls (--partition=...)
    std::string plot;                 // the merge job also draws this PNG; empty: none
};

// Writes sweep.sbatch (one array task per shard: `kvw sweep --run DIR --shard
// $SLURM_ARRAY_TASK_ID`, `--gpus-per-task=1` for the cuda backend) and merge.sbatch beside the
// plan, submits the array for `shards` with `sbatch --parsable` and the merge with
// `--dependency=afterok:JOB`, and records both job ids in slurm.json. std::runtime_error with
// sbatch's own words when it refuses.
void submit_to_slurm(const std::filesystem::path& dir, const SweepPlan& plan,
                     const std::vector<int>& shards, const SlurmOptions& options);

// What Slurm says of the array tasks of the jobs slurm.json records: shard -> "RUNNING",
// "PENDING", ... while squeue lists it, else sacct's final state ("CANCELLED by 0", "FAILED")
// where accounting is on. Empty when the plan was never submitted or Slurm's commands are not
// there.
std::map<int, std::string> slurm_shard_states(const std::filesystem::path& dir);

// Whether the plan was submitted to Slurm (slurm.json is there).
bool submitted_to_slurm(const std::filesystem::path& dir);

// "0-6%2", "3,5": the --array value for `shards`.
std::string array_range(const std::vector<int>& shards, int throttle);

}  // namespace kvw::cli
