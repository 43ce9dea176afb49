#pragma once
#include <filesystem>
#include <vector>

// kvw sweep --jobs N: the shards of a plan as processes of this program on this machine, at
// most N at a time, each `kvw sweep --run DIR --shard I` with its output in logs/shard-I.log:
// the very command a Slurm array task runs, so a local run and a cluster run score alike.
namespace kvw::cli {

// Runs `shards` (in order, N at a time); returns those whose process failed.
std::vector<int> run_local(const std::filesystem::path& dir, const std::vector<int>& shards,
                           int jobs);

}  // namespace kvw::cli
