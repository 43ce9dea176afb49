#include "slurm_runner.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "child_process.h"
#include "core/io/regular_file.h"
#include "core/io/replacing_file.h"
#include "core/sweep/plan_dir.h"

namespace kvw::cli {

namespace {

namespace fs = std::filesystem;

// A word for /bin/sh: single-quoted, each ' written '\''.
std::string quoted(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

nlohmann::json read_jobs(const fs::path& dir) {
    if (!fs::exists(plan_dir::slurm_jobs(dir)))
        return {{"array_jobs", nlohmann::json::array()}, {"merge_jobs", nlohmann::json::array()}};
    return nlohmann::json::parse(read_regular_file(plan_dir::slurm_jobs(dir), 1 << 20));
}

// The job id `sbatch --parsable` printed ("123" or "123;cluster"); runtime_error otherwise.
std::string submit(std::vector<std::string> argv) {
    const std::string command = [&] {
        std::string c;
        for (const std::string& w : argv) c += (c.empty() ? "" : " ") + w;
        return c;
    }();
    const ProgramOutput out = run_program(argv);
    if (!out.ran)
        throw std::runtime_error(
            "kvw sweep --slurm runs sbatch, which is not on this machine's "
            "PATH (is it a Slurm login node?)");
    // The id is the last line; sbatch may warn on the lines before it.
    std::string last = out.output.substr(0, out.output.find_last_not_of("\n") + 1);
    last = last.substr(last.find_last_of('\n') + 1);
    last = last.substr(0, last.find(';'));
    if (out.status != 0 || last.empty() ||
        last.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error(command + " failed (exit " + std::to_string(out.status) +
                                 "): " + out.output);
    spdlog::info("[sweep] {}: job {}", command, last);
    return last;
}

std::vector<int> every_shard(const SweepPlan& plan) {
    std::vector<int> shards(size_t(plan.shards()));
    for (int s = 0; s < plan.shards(); ++s) shards[size_t(s)] = s;
    return shards;
}

void write_scripts(const fs::path& dir, const SweepPlan& plan, const SlurmOptions& options) {
    const std::string self = quoted(self_program().string()), folder = quoted(dir.string());
    std::string array =
        "#!/bin/sh\n"
        "# Written by kvw sweep --slurm: one array task per shard of plan.json\n"
        "# (a shard's results land atomically in shards/; its log in logs/).\n"
        "#SBATCH --job-name=kvw-sweep\n"
        "#SBATCH --array=" +
        array_range(every_shard(plan), options.throttle) +
        "\n#SBATCH --ntasks=1\n"
        "#SBATCH --output=" +
        (plan_dir::logs(dir) / "shard-%5a.log").string() + "\n";
    if (plan.backend == "cuda") array += "#SBATCH --gpus-per-task=1\n";
    array += "exec " + self + " sweep --run " + folder + " --shard \"$SLURM_ARRAY_TASK_ID\"\n";
    write_file_atomically(plan_dir::array_script(dir), array);
    std::string merge =
        "#!/bin/sh\n"
        "# Written by kvw sweep --slurm: the tables, once every shard is done.\n"
        "#SBATCH --job-name=kvw-sweep-merge\n"
        "#SBATCH --ntasks=1\n"
        "#SBATCH --output=" +
        (plan_dir::logs(dir) / "merge.log").string() + "\n" + "exec " + self + " sweep --merge " +
        folder;
    if (!options.plot.empty()) merge += " --plot " + quoted(options.plot);
    write_file_atomically(plan_dir::merge_script(dir), merge + "\n");
}

}  // namespace

std::string array_range(const std::vector<int>& shards, int throttle) {
    std::string out;
    for (size_t i = 0; i < shards.size();) {
        size_t j = i;
        while (j + 1 < shards.size() && shards[j + 1] == shards[j] + 1) ++j;
        out += (out.empty() ? "" : ",") + std::to_string(shards[i]);
        if (j > i) out += "-" + std::to_string(shards[j]);
        i = j + 1;
    }
    if (throttle > 0) out += "%" + std::to_string(throttle);
    return out;
}

void submit_to_slurm(const fs::path& dir, const SweepPlan& plan, const std::vector<int>& shards,
                     const SlurmOptions& options) {
    fs::create_directories(plan_dir::logs(dir));
    write_scripts(dir, plan, options);
    std::vector<std::string> array = {"sbatch", "--parsable",
                                      "--array=" + array_range(shards, options.throttle)};
    array.insert(array.end(), options.sbatch.begin(), options.sbatch.end());
    array.push_back(plan_dir::array_script(dir).string());
    const std::string job = submit(array);
    // afterok: the merge runs once every task ended well; a task that failed leaves it never
    // runnable, and Slurm removes it (--kill-on-invalid-dep) for --resume to submit anew.
    std::vector<std::string> merge = {"sbatch", "--parsable", "--dependency=afterok:" + job,
                                      "--kill-on-invalid-dep=yes"};
    merge.insert(merge.end(), options.sbatch.begin(), options.sbatch.end());
    merge.push_back(plan_dir::merge_script(dir).string());
    const std::string merge_job = submit(merge);
    nlohmann::json jobs = read_jobs(dir);
    jobs["array_jobs"].push_back(job);
    jobs["merge_jobs"].push_back(merge_job);
    write_file_atomically(plan_dir::slurm_jobs(dir), jobs.dump(1) + "\n");
    std::printf("submitted array job %s (%zu shards, --array=%s) and merge job %s\n", job.c_str(),
                shards.size(), array_range(shards, options.throttle).c_str(), merge_job.c_str());
}

bool submitted_to_slurm(const fs::path& dir) { return fs::exists(plan_dir::slurm_jobs(dir)); }

std::map<int, std::string> slurm_shard_states(const fs::path& dir) {
    std::map<int, std::string> states;
    if (!submitted_to_slurm(dir)) return states;
    // "12_3|RUNNING": the task id of an array job is its shard (--array lists shard numbers).
    const auto read_lines = [&](const std::string& text, bool overwrite) {
        size_t start = 0;
        for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
            const std::string line = text.substr(start, end - start);
            const size_t underscore = line.find('_'), bar = line.find('|');
            if (underscore == std::string::npos || bar == std::string::npos || bar < underscore)
                continue;
            const std::string task = line.substr(underscore + 1, bar - underscore - 1);
            if (task.empty() || task.find_first_not_of("0123456789") != std::string::npos) continue;
            const int shard = std::stoi(task);
            if (overwrite || !states.contains(shard)) states[shard] = line.substr(bar + 1);
        }
    };
    // Later submissions (--resume) are the ones that count: read in order, newest last.
    const nlohmann::json jobs = read_jobs(dir);
    for (const nlohmann::json& job : jobs.at("array_jobs")) {
        const std::string id = job.get<std::string>();
        const ProgramOutput acct =
            run_program({"sacct", "-n", "-P", "-X", "-j", id, "-o", "JobID,State"});
        if (acct.ran && acct.status == 0) read_lines(acct.output, true);
        const ProgramOutput queue = run_program({"squeue", "-h", "-r", "-j", id, "-o", "%i|%T"});
        if (queue.ran && queue.status == 0) read_lines(queue.output, true);
    }
    return states;
}

}  // namespace kvw::cli
