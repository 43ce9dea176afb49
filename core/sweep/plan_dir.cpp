#include "plan_dir.h"

#include <cstdio>

#include "core/io/regular_file.h"
#include "core/io/replacing_file.h"
#include "sweep_error.h"

namespace kvw::plan_dir {

namespace {

constexpr uint64_t kMaxPlanBytes = uint64_t(1) << 30;

}  // namespace

std::filesystem::path shard_log(const std::filesystem::path& dir, int shard) {
    char name[32];
    std::snprintf(name, sizeof name, "shard-%05d.log", shard);
    return logs(dir) / name;
}

void write_plan(const std::filesystem::path& dir, const SweepPlan& plan) {
    std::filesystem::create_directories(dir);
    write_file_atomically(plan_dir::plan(dir), plan_json(plan));
}

SweepPlan read_plan(const std::filesystem::path& dir) {
    std::string text;
    try {
        text = read_regular_file(plan(dir), kMaxPlanBytes);
    } catch (const FileReadError& e) {
        throw SweepError(dir.string() + " is not a sweep folder: cannot read " + e.what());
    }
    return plan_from_json(text, plan(dir).string());
}

}  // namespace kvw::plan_dir
