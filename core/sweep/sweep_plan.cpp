#include "sweep_plan.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/policy/policy_error.h"
#include "core/policy/policy_table.h"
#include "core/state/stream_hash.h"
#include "sweep_error.h"

namespace kvw {

namespace {

constexpr const char* kPlanFormat = "kvw-sweep-plan";
constexpr int kPlanVersion = 1;

template <typename Enum, size_t N>
Enum enum_at(const nlohmann::json& j, const char* key, const EnumName<Enum> (&table)[N],
             const std::string& where) {
    const std::string name = j.at(key).get<std::string>();
    if (const std::optional<Enum> value = value_in(table, name)) return *value;
    throw SweepError(where + ": " + key + " '" + name + "' is not one of " + names_in(table, ", "));
}

}  // namespace

int SweepPlan::shards() const {
    const int64_t n = int64_t(cells.size());
    return int((n + cells_per_shard - 1) / cells_per_shard);
}

std::pair<int64_t, int64_t> SweepPlan::shard_cells(int shard) const {
    const int64_t first = int64_t(shard) * cells_per_shard;
    return {first, std::min<int64_t>(first + cells_per_shard, int64_t(cells.size()))};
}

std::string SweepPlan::name(const SweepCell& cell) const {
    return "cell " + std::to_string(cell.index) + " (model " + models.at(cell.model).spec +
           ", text " + texts.at(cell.text) + ", " + describe(cell.config) + ")";
}

std::vector<SweepConfig> grid_configs(const SweepAxes& a) {
    std::vector<SweepConfig> out;
    for (const std::string& policy : a.policies) {
        if (policy == kFullCachePolicy) {
            for (KvType k : a.k_types)
                for (KvType v : a.v_types) {
                    SweepConfig c;
                    c.k_type = k;
                    c.v_type = v;
                    out.push_back(c);
                }
            continue;
        }
        for (int sink : a.sinks)
            for (int window : a.windows)
                for (int budget : a.budgets)
                    for (KvType k : a.k_types)
                        for (KvType v : a.v_types)
                            for (CacheLayout layout : a.layouts)
                                for (RopePolicy rope : a.ropes)
                                    out.push_back(
                                        {policy, {sink, budget, window}, k, v, layout, rope});
    }
    return out;
}

std::vector<SweepCell> grid_cells(int models, int texts, const std::vector<SweepConfig>& configs) {
    std::vector<SweepCell> cells;
    for (int m = 0; m < models; ++m)
        for (int t = 0; t < texts; ++t)
            for (const SweepConfig& c : configs) cells.push_back({int64_t(cells.size()), m, t, c});
    return cells;
}

void check_cells(const SweepPlan& plan) {
    if (plan.cells.empty()) throw SweepError("the grid has no cells");
    for (const SweepCell& cell : plan.cells) {
        const SweepConfig& c = cell.config;
        const int context = plan.models.at(cell.model).max_context;
        if (plan.ctx > context)
            throw SweepError(plan.name(cell) + ": --ctx " + std::to_string(plan.ctx) +
                             " exceeds the model's context of " + std::to_string(context));
        if (c.full()) continue;
        const PolicyInfo* policy = find_policy(c.policy);
        if (!policy) {
            std::string names = kFullCachePolicy;
            for (const PolicyInfo& p : policy_table()) names += ", " + std::string(p.name);
            throw SweepError(plan.name(cell) + ": unknown policy '" + c.policy +
                             "' (known: " + names + ")");
        }
        try {
            check_budget(c.budget);
        } catch (const BudgetError& e) {
            throw SweepError(plan.name(cell) + ": " + e.what());
        }
        if (c.rows_per_layer() > plan.ctx)
            throw SweepError(plan.name(cell) +
                             ": S + B + W = " + std::to_string(c.rows_per_layer()) +
                             " rows per layer, more than a chunk of --ctx " +
                             std::to_string(plan.ctx) + " tokens holds");
    }
}

std::string plan_json(const SweepPlan& plan) {
    nlohmann::json models = nlohmann::json::array(), cells = nlohmann::json::array();
    for (const PlanModel& m : plan.models)
        models.push_back({{"spec", m.spec}, {"xxh64", m.hash}, {"max_context", m.max_context}});
    for (const SweepCell& cell : plan.cells) {
        const SweepConfig& c = cell.config;
        cells.push_back({{"index", cell.index},
                         {"model", cell.model},
                         {"text", cell.text},
                         {"policy", c.policy},
                         {"sink", c.budget.sink},
                         {"budget", c.budget.budget},
                         {"window", c.budget.window},
                         {"k_type", name_in(kKvTypeNames, c.k_type)},
                         {"v_type", name_in(kKvTypeNames, c.v_type)},
                         {"layout", name_in(kCacheLayoutNames, c.layout)},
                         {"rope", name_in(kRopePolicyNames, c.rope)}});
    }
    const nlohmann::json j = {{"format", kPlanFormat},   {"format_version", kPlanVersion},
                              {"program", plan.program}, {"backend", plan.backend},
                              {"ctx", plan.ctx},         {"seed", plan.seed},
                              {"gate", plan.gate},       {"cells_per_shard", plan.cells_per_shard},
                              {"shards", plan.shards()}, {"models", models},
                              {"texts", plan.texts},     {"cells", cells}};
    return j.dump(1) + "\n";
}

SweepPlan plan_from_json(const std::string& text, const std::string& path) {
    SweepPlan plan;
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (j.at("format") != kPlanFormat || j.at("format_version") != kPlanVersion)
            throw SweepError(path + ": not a " + kPlanFormat + " version " +
                             std::to_string(kPlanVersion));
        plan.program = j.at("program").get<std::string>();
        plan.backend = j.at("backend").get<std::string>();
        plan.ctx = j.at("ctx").get<int>();
        plan.seed = j.at("seed").get<uint64_t>();
        plan.gate = j.at("gate").get<std::string>();
        plan.cells_per_shard = j.at("cells_per_shard").get<int>();
        if (plan.cells_per_shard < 1) throw SweepError(path + ": cells_per_shard must be >= 1");
        for (const nlohmann::json& m : j.at("models"))
            plan.models.push_back({m.at("spec").get<std::string>(),
                                   m.at("xxh64").get<std::string>(),
                                   m.at("max_context").get<int>()});
        plan.texts = j.at("texts").get<std::vector<std::string>>();
        for (const nlohmann::json& c : j.at("cells")) {
            SweepCell cell;
            cell.index = c.at("index").get<int64_t>();
            const std::string where = path + ": cell " + std::to_string(cell.index);
            if (cell.index != int64_t(plan.cells.size()))
                throw SweepError(where + " is listed at position " +
                                 std::to_string(plan.cells.size()));
            cell.model = c.at("model").get<int>();
            cell.text = c.at("text").get<int>();
            if (cell.model < 0 || cell.model >= int(plan.models.size()) || cell.text < 0 ||
                cell.text >= int(plan.texts.size()))
                throw SweepError(where + ": model or text out of range");
            cell.config.policy = c.at("policy").get<std::string>();
            cell.config.budget = {c.at("sink").get<int>(), c.at("budget").get<int>(),
                                  c.at("window").get<int>()};
            cell.config.k_type = enum_at(c, "k_type", kKvTypeNames, where);
            cell.config.v_type = enum_at(c, "v_type", kKvTypeNames, where);
            cell.config.layout = enum_at(c, "layout", kCacheLayoutNames, where);
            cell.config.rope = enum_at(c, "rope", kRopePolicyNames, where);
            plan.cells.push_back(cell);
        }
    } catch (const nlohmann::json::exception& e) {
        throw SweepError(path + ": not a sweep plan: " + e.what());
    }
    return plan;
}

std::string plan_id(const SweepPlan& plan) {
    const std::string json = plan_json(plan);
    StreamHash hash;
    hash.bytes(json.data(), json.size());
    return hash_hex(hash.digest());
}

}  // namespace kvw
