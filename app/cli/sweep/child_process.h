#pragma once
#include <filesystem>
#include <string>
#include <vector>

// Other programs a sweep runs: this kvw again for each local shard, and Slurm's commands
// (sbatch, squeue, sacct). fork + exec with an argument vector, never a shell, so a path with
// spaces or quotes stays one argument.
namespace kvw::cli {

// This program's own path (/proc/self/exe), to run shards with.
std::filesystem::path self_program();

// Starts `argv` (argv[0] looked up in PATH) with stdout and stderr in `log` (truncated); the
// child's pid. std::runtime_error when it cannot fork or open the log.
int spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log);

struct ProgramOutput {
    bool ran = false;    // false: the program is not there (exec failed)
    int status = -1;     // its exit status; -1 when killed by a signal
    std::string output;  // stdout and stderr together
};
// Runs `argv` to its end and returns what it printed.
ProgramOutput run_program(const std::vector<std::string>& argv);

}  // namespace kvw::cli
