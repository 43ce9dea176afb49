#include "shard_file.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/io/regular_file.h"
#include "core/io/replacing_file.h"
#include "sweep_error.h"

namespace kvw {

namespace {

constexpr const char* kShardFormat = "kvw-sweep-shard";
constexpr uint64_t kMaxShardBytes = uint64_t(1) << 30;

}  // namespace

std::filesystem::path shard_path(const std::filesystem::path& dir, int shard) {
    char name[32];
    std::snprintf(name, sizeof name, "shard-%05d.json", shard);
    return dir / "shards" / name;
}

void write_shard(const std::filesystem::path& dir, const SweepPlan& plan, int shard,
                 const std::vector<CellResult>& results) {
    nlohmann::json cells = nlohmann::json::array();
    for (const CellResult& r : results)
        cells.push_back({{"index", r.index},
                         {"nll_sum", r.nll},
                         {"scored_tokens", r.scored},
                         {"kept", r.kept},
                         {"seconds", r.seconds}});
    const nlohmann::json j = {
        {"format", kShardFormat}, {"plan", plan_id(plan)}, {"shard", shard}, {"cells", cells}};
    std::filesystem::create_directories(dir / "shards");
    write_file_atomically(shard_path(dir, shard), j.dump() + "\n");
}

std::optional<std::vector<CellResult>> read_shard(const std::filesystem::path& dir,
                                                  const SweepPlan& plan, int shard) {
    const std::filesystem::path path = shard_path(dir, shard);
    if (!std::filesystem::exists(path)) return std::nullopt;
    const auto [first, last] = plan.shard_cells(shard);
    std::vector<CellResult> out;
    try {
        const nlohmann::json j = nlohmann::json::parse(read_regular_file(path, kMaxShardBytes));
        if (j.at("format") != kShardFormat) throw SweepError(path.string() + ": not a sweep shard");
        if (j.at("plan") != plan_id(plan) || j.at("shard") != shard)
            throw SweepError(path.string() + ": the results of another plan or shard (plan " +
                             j.at("plan").dump() + ", shard " + j.at("shard").dump() + ")");
        for (const nlohmann::json& c : j.at("cells")) {
            CellResult r;
            r.index = c.at("index").get<int64_t>();
            r.nll = c.at("nll_sum").get<double>();
            r.scored = c.at("scored_tokens").get<int64_t>();
            r.kept = c.at("kept").get<std::vector<std::vector<int64_t>>>();
            r.seconds = c.at("seconds").get<double>();
            if (r.index != first + int64_t(out.size()))
                throw SweepError(path.string() + ": cell " + std::to_string(r.index) +
                                 " where the plan has cell " +
                                 std::to_string(first + int64_t(out.size())));
            out.push_back(std::move(r));
        }
    } catch (const nlohmann::json::exception& e) {
        throw SweepError(path.string() + ": not a sweep shard: " + e.what());
    } catch (const FileReadError& e) {
        throw SweepError(std::string("cannot read ") + e.what());
    }
    if (int64_t(out.size()) != last - first)
        throw SweepError(path.string() + ": " + std::to_string(out.size()) +
                         " cells, the plan's shard has " + std::to_string(last - first));
    return out;
}

std::vector<int> missing_shards(const std::filesystem::path& dir, const SweepPlan& plan) {
    std::vector<int> missing;
    for (int s = 0; s < plan.shards(); ++s)
        if (!std::filesystem::exists(shard_path(dir, s))) missing.push_back(s);
    return missing;
}

std::vector<CellResult> read_all_cells(const std::filesystem::path& dir, const SweepPlan& plan) {
    const std::vector<int> missing = missing_shards(dir, plan);
    if (!missing.empty()) {
        std::string list;
        for (int s : missing) list += (list.empty() ? "" : ", ") + std::to_string(s);
        throw SweepError(dir.string() + ": " + std::to_string(missing.size()) + " of " +
                         std::to_string(plan.shards()) + " shards have no results yet (" + list +
                         "): kvw sweep --status / --resume");
    }
    std::vector<CellResult> cells;
    for (int s = 0; s < plan.shards(); ++s) {
        std::optional<std::vector<CellResult>> shard = read_shard(dir, plan, s);
        if (!shard) throw SweepError(shard_path(dir, s).string() + " went away during the merge");
        for (CellResult& r : *shard) cells.push_back(std::move(r));
    }
    return cells;
}

}  // namespace kvw
