#include "sweep_status.h"

#include <algorithm>
#include <fstream>

#include "core/sweep/plan_dir.h"
#include "core/sweep/shard_file.h"
#include "core/sweep/sweep_error.h"
#include "slurm_runner.h"

namespace kvw::cli {

namespace {

bool mentions_error(std::string line) {
    std::ranges::transform(line, line.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
    return line.find("error") != std::string::npos;
}

// Slurm states of a task that has not ended (squeue's words).
bool still_queued(const std::string& state) {
    for (const char* s : {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                          "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT"})
        if (state == s) return true;
    return false;
}

}  // namespace

std::string failure_line(const std::filesystem::path& log) {
    std::ifstream in(log);
    std::string last, first_error;
    for (std::string line; std::getline(in, line);) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        last = line;
        if (mentions_error(line) && first_error.empty()) first_error = line;
    }
    return first_error.empty() ? last : first_error;
}

std::vector<ShardStatus> shard_statuses(const std::filesystem::path& dir, const SweepPlan& plan) {
    const std::map<int, std::string> slurm = slurm_shard_states(dir);
    std::vector<ShardStatus> out;
    for (int s = 0; s < plan.shards(); ++s) {
        ShardStatus st{s, ShardState::NotStarted, ""};
        const auto it = slurm.find(s);
        const std::string state = it == slurm.end() ? "" : it->second;
        try {
            if (read_shard(dir, plan, s)) st.state = ShardState::Done;
        } catch (const SweepError& e) {
            st = {s, ShardState::Failed, e.what()};
        }
        if (st.state == ShardState::NotStarted) {
            const std::filesystem::path log = plan_dir::shard_log(dir, s);
            if (still_queued(state))
                st = {s, ShardState::Queued, state};
            else if (std::filesystem::exists(log) || !state.empty())
                st = {s, ShardState::Failed,
                      (state.empty() ? "" : "(" + state + ") ") + failure_line(log)};
            if (st.state == ShardState::Failed && st.detail.empty())
                st.detail = "its log " + log.string() + " says nothing";
        }
        out.push_back(st);
    }
    return out;
}

std::string status_report(const SweepPlan& plan, const std::vector<ShardStatus>& statuses) {
    std::string out;
    int done = 0, queued = 0, failed = 0;
    for (const ShardStatus& st : statuses) {
        const auto [first, last] = plan.shard_cells(st.shard);
        const std::string head = "shard " + std::to_string(st.shard) + " (cells " +
                                 std::to_string(first) + "-" + std::to_string(last - 1) + "): ";
        switch (st.state) {
            case ShardState::Done:
                ++done;
                out += head + "done\n";
                break;
            case ShardState::Queued:
                ++queued;
                out += head + "queued (" + st.detail + ")\n";
                break;
            case ShardState::Failed:
                ++failed;
                out += head + "failed: " + st.detail + "\n";
                break;
            case ShardState::NotStarted: out += head + "not started\n"; break;
        }
    }
    const int total = int(statuses.size());
    out += std::to_string(done) + " of " + std::to_string(total) + " shards done, " +
           std::to_string(queued) + " queued or running, " + std::to_string(failed) + " failed, " +
           std::to_string(total - done - queued - failed) + " not started\n";
    return out;
}

}  // namespace kvw::cli
