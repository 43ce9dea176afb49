#pragma once
#include <filesystem>

#include "sweep_plan.h"

// The folder of a sweep (`kvw sweep --plan DIR`): what each file in it is, in one place.
//   plan.json            the plan (sweep_plan.h)
//   shards/shard-N.json  each shard's results (shard_file.h)
//   logs/shard-N.log     each shard's log (a local process's or the Slurm array task's)
//   sweep.sbatch, merge.sbatch, slurm.json   the Slurm scripts and the submitted job ids
//   sweep.csv, overlap.csv                   the merged tables (sweep_tables.h)
namespace kvw::plan_dir {

inline std::filesystem::path plan(const std::filesystem::path& dir) { return dir / "plan.json"; }
inline std::filesystem::path logs(const std::filesystem::path& dir) { return dir / "logs"; }
std::filesystem::path shard_log(const std::filesystem::path& dir, int shard);
inline std::filesystem::path array_script(const std::filesystem::path& dir) {
    return dir / "sweep.sbatch";
}
inline std::filesystem::path merge_script(const std::filesystem::path& dir) {
    return dir / "merge.sbatch";
}
inline std::filesystem::path slurm_jobs(const std::filesystem::path& dir) {
    return dir / "slurm.json";
}
inline std::filesystem::path table(const std::filesystem::path& dir) { return dir / "sweep.csv"; }
inline std::filesystem::path overlap(const std::filesystem::path& dir) {
    return dir / "overlap.csv";
}

// Writes plan.json (atomically), making the folder.
void write_plan(const std::filesystem::path& dir, const SweepPlan& plan);
// SweepError naming the folder when it holds no readable plan.
SweepPlan read_plan(const std::filesystem::path& dir);

}  // namespace kvw::plan_dir
