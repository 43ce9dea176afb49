#include "local_runner.h"

#include <sys/wait.h>

#include <cerrno>
#include <map>

#include <spdlog/spdlog.h>

#include "child_process.h"
#include "core/sweep/plan_dir.h"

namespace kvw::cli {

std::vector<int> run_local(const std::filesystem::path& dir, const std::vector<int>& shards,
                           int jobs) {
    std::filesystem::create_directories(plan_dir::logs(dir));
    const std::string self = self_program().string();
    std::map<int, int> running;  // pid -> shard
    std::vector<int> failed;
    size_t next = 0;
    while (next < shards.size() || !running.empty()) {
        while (next < shards.size() && int(running.size()) < jobs) {
            const int shard = shards[next++];
            const int pid = spawn_logged(
                {self, "sweep", "--run", dir.string(), "--shard", std::to_string(shard)},
                plan_dir::shard_log(dir, shard));
            running[pid] = shard;
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;  // no children left: nothing more to wait for
        }
        const auto it = running.find(int(pid));
        if (it == running.end()) continue;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        spdlog::info(
            "[sweep] shard {} {}", it->second,
            ok ? "done" : "failed (" + plan_dir::shard_log(dir, it->second).string() + ")");
        if (!ok) failed.push_back(it->second);
        running.erase(it);
    }
    return failed;
}

}  // namespace kvw::cli
