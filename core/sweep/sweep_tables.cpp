#include "sweep_tables.h"

#include <cmath>
#include <cstdio>

#include "bootstrap.h"
#include "core/eval/ab_compare.h"
#include "sweep_error.h"

namespace kvw {

namespace {

// The cells of one (model, configuration), one per text, in plan order.
struct Group {
    int model = 0;
    SweepConfig config;
    std::vector<int64_t> cells;
    std::vector<int> texts;
};

std::vector<Group> groups_of(const SweepPlan& plan, const std::vector<CellResult>& results) {
    if (results.size() != plan.cells.size())
        throw SweepError("the merge has " + std::to_string(results.size()) +
                         " results for a plan of " + std::to_string(plan.cells.size()) + " cells");
    std::vector<Group> groups;
    for (const SweepCell& cell : plan.cells) {
        Group* group = nullptr;
        for (Group& g : groups)
            if (g.model == cell.model && g.config == cell.config) group = &g;
        if (!group) group = &groups.emplace_back(Group{cell.model, cell.config, {}, {}});
        group->cells.push_back(cell.index);
        group->texts.push_back(cell.text);
    }
    return groups;
}

std::vector<TextScore> scores(const Group& g, const std::vector<CellResult>& results) {
    std::vector<TextScore> out;
    for (int64_t c : g.cells) out.push_back({results[size_t(c)].nll, results[size_t(c)].scored});
    return out;
}

const Group* full_cache_of(const std::vector<Group>& groups, const Group& g) {
    for (const Group& f : groups)
        if (f.config.full() && f.model == g.model && f.config.k_type == g.config.k_type &&
            f.config.v_type == g.config.v_type && f.texts == g.texts)
            return &f;
    return nullptr;
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// model,POLICIES,sink,budget,window,rows_per_layer,k_type,v_type,layout,rope: the key columns;
// `policies` is the group's policy, or "a,b" in the overlap table.
std::string key_fields(const SweepPlan& plan, const Group& g, const std::string& policies) {
    const SweepConfig& c = g.config;
    std::string out = csv_field(plan.models[size_t(g.model)].spec) + "," + policies + ",";
    if (c.full())
        out += ",,,,";
    else
        out += std::to_string(c.budget.sink) + "," + std::to_string(c.budget.budget) + "," +
               std::to_string(c.budget.window) + "," + std::to_string(c.rows_per_layer()) + ",";
    out +=
        std::string(name_in(kKvTypeNames, c.k_type)) + "," + name_in(kKvTypeNames, c.v_type) + ",";
    // The full cache holds every row at its position: original's phases, no layout of its own.
    out += c.full() ? std::string(",original")
                    : std::string(name_in(kCacheLayoutNames, c.layout)) + "," +
                          name_in(kRopePolicyNames, c.rope);
    return out;
}

}  // namespace

std::string perplexity_table(const SweepPlan& plan, const std::vector<CellResult>& results) {
    const std::vector<Group> groups = groups_of(plan, results);
    std::string out = std::string(kSweepTableHeader) + "\n";
    char line[256];
    for (const Group& g : groups) {
        const std::vector<TextScore> s = scores(g, results);
        double nll = 0;
        int64_t scored = 0;
        for (const TextScore& t : s) {
            nll += t.nll;
            scored += t.scored;
        }
        const double mean = scored > 0 ? nll / double(scored) : 0.0;
        const double ppl = pooled_perplexity(s);
        std::snprintf(line, sizeof line, ",%d,%zu,%lld,%.6f,%.6f", plan.ctx, g.cells.size(),
                      static_cast<long long>(scored), mean, ppl);
        out += key_fields(plan, g, g.config.policy) + line;
        if (const Group* full = full_cache_of(groups, g)) {
            const std::vector<TextScore> f = scores(*full, results);
            const Interval ci = bootstrap_difference(s, f);
            std::snprintf(line, sizeof line, ",%.6f,%.6f,%.6f", ppl - pooled_perplexity(f), ci.low,
                          ci.high);
            out += line;
        } else {
            out += ",,,";
        }
        out += "\n";
    }
    return out;
}

std::string overlap_table(const SweepPlan& plan, const std::vector<CellResult>& results) {
    const std::vector<Group> groups = groups_of(plan, results);
    std::string out =
        "model,policy_a,policy_b,sink,budget,window,rows_per_layer,k_type,v_type,layout,rope,texts,"
        "mean_kept_a,mean_kept_b,mean_both,mean_jaccard\n";
    char line[160];
    for (size_t i = 0; i < groups.size(); ++i)
        for (size_t j = i + 1; j < groups.size(); ++j) {
            const Group &a = groups[i], &b = groups[j];
            SweepConfig same = b.config;
            same.policy = a.config.policy;
            if (a.config.full() || b.config.full() || a.model != b.model ||
                a.config.policy == b.config.policy || !(same == a.config) || a.texts != b.texts)
                continue;
            double kept_a = 0, kept_b = 0, both = 0, jaccard = 0;
            int64_t layers = 0;
            for (size_t t = 0; t < a.cells.size(); ++t) {
                const CellResult &ra = results[size_t(a.cells[t])],
                                 &rb = results[size_t(b.cells[t])];
                for (size_t l = 0; l < std::min(ra.kept.size(), rb.kept.size()); ++l) {
                    const AbCounts n = ab_counts(ra.kept[l], rb.kept[l]);
                    kept_a += n.a;
                    kept_b += n.b;
                    both += n.both;
                    jaccard += n.jaccard();
                    ++layers;
                }
            }
            const double d = double(std::max<int64_t>(layers, 1));
            const std::string key = key_fields(plan, a, a.config.policy + "," + b.config.policy);
            std::snprintf(line, sizeof line, ",%zu,%.4f,%.4f,%.4f,%.6f", a.cells.size(), kept_a / d,
                          kept_b / d, both / d, jaccard / d);
            out += key + line + "\n";
        }
    return out;
}

}  // namespace kvw
