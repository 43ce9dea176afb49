#include "core/policy/layer_selection.h"

#include <algorithm>
#include <unordered_set>

namespace kvw {

namespace {

InvariantResult ok(const char* name, int layer) { return {name, true, layer, -1, {}}; }

InvariantResult bad(const char* name, int layer, int row, std::string detail) {
    return {name, false, layer, row, std::move(detail)};
}

std::string str(int64_t v) { return std::to_string(v); }

InvariantResult budget_rows(const LayerSelection& s, const PolicyBudget& b, int layer, int rows) {
    const int64_t full = int64_t(b.sink) + b.budget + b.window;
    if (int64_t(s.rows()) != rows)
        return bad("budget_rows", layer, -1,
                   str(rows) + " rows, bookkeeping holds " + str(int64_t(s.rows())));
    if (s.seen >= full && rows != full)
        return bad(
            "budget_rows", layer, -1,
            str(rows) + " rows after " + str(s.seen) + " records, budget S+B+W = " + str(full));
    return ok("budget_rows", layer);
}

InvariantResult sinks_first(const LayerSelection& s, const PolicyBudget& b, int layer,
                            const LayerMap& map, const std::vector<int64_t>& first_layer_sinks) {
    const int64_t expected = std::min<int64_t>(b.sink, s.seen);
    if (int64_t(s.sinks.size()) != expected)
        return bad("sinks_first", layer, -1,
                   str(int64_t(s.sinks.size())) + " sinks, expected " + str(expected));
    for (size_t i = 0; i < s.sinks.size(); ++i)
        if (int(i) >= map.rows() || map.pos2ledger[i] != s.sinks[i])
            return bad("sinks_first", layer, int(i),
                       "sink " + str(s.sinks[i]) + " is not row " + str(int64_t(i)));
    if (s.sinks != first_layer_sinks)
        return bad("sinks_first", layer, -1, "the sinks differ from layer 0's");
    return ok("sinks_first", layer);
}

InvariantResult window_last(const LayerSelection& s, const PolicyBudget& b, int layer,
                            const LayerMap& map) {
    if (int64_t(s.window.size()) > b.window)
        return bad("window_last", layer, -1,
                   str(int64_t(s.window.size())) + " ids in a window of " + str(b.window));
    const int first = map.rows() - int(s.window.size());
    for (size_t i = 0; i < s.window.size(); ++i) {
        const int row = first + int(i);
        if (row < 0 || map.pos2ledger[size_t(row)] != s.window[i])
            return bad("window_last", layer, std::max(row, 0),
                       "window id " + str(s.window[i]) + " is not row " + str(row));
    }
    return ok("window_last", layer);
}

InvariantResult high_value_sorted(const LayerSelection& s, const PolicyBudget& b, int layer,
                                  const LayerMap& map) {
    if (int64_t(s.high_value.size()) > b.budget)
        return bad("high_value_sorted", layer, -1,
                   str(int64_t(s.high_value.size())) + " high-value ids, budget " + str(b.budget));
    for (size_t i = 1; i < s.high_value.size(); ++i)
        if (!(s.high_value[i - 1] < s.high_value[i]))
            return bad("high_value_sorted", layer, -1,
                       "entry " + str(int64_t(i)) + " (id " + str(s.high_value[i].second) +
                           ") is not above the one before it");
    std::unordered_set<int64_t> others(s.sinks.begin(), s.sinks.end());
    others.insert(s.window.begin(), s.window.end());
    const std::unordered_set<int64_t> live(map.pos2ledger.begin(), map.pos2ledger.end());
    for (const auto& [score, id] : s.high_value) {
        if (!live.count(id))
            return bad("high_value_sorted", layer, -1, "id " + str(id) + " is not a row");
        if (others.count(id))
            return bad("high_value_sorted", layer, -1,
                       "id " + str(id) + " is also a sink or in the window");
    }
    return ok("high_value_sorted", layer);
}

InvariantResult no_return(int layer, const LayerMap& map, const Ledger& ledger) {
    for (int r = 0; r < map.rows(); ++r) {
        const int64_t id = map.pos2ledger[size_t(r)];
        if (!ledger.contains(id)) continue;  // ids_live reports it
        const Removal& gone = ledger.at(id).removal[size_t(layer)];
        if (gone.tick >= 0)
            return bad("no_return", layer, r,
                       "record " + str(id) + " left this layer at tick " + str(gone.tick) + " (" +
                           removal_reason_name(gone.cause.reason) + ") and is back");
    }
    return ok("no_return", layer);
}

}  // namespace

const std::vector<std::string>& selection_invariant_names() {
    static const std::vector<std::string> names = {"budget_rows", "sinks_first", "window_last",
                                                   "high_value_sorted", "no_return"};
    return names;
}

std::vector<InvariantResult> check_selection(const LayerSelection& selection,
                                             const PolicyBudget& budget, int layer,
                                             const LayerMap& map, const Ledger& ledger,
                                             const std::vector<int64_t>& first_layer_sinks) {
    return {budget_rows(selection, budget, layer, map.rows()),
            sinks_first(selection, budget, layer, map, first_layer_sinks),
            window_last(selection, budget, layer, map),
            high_value_sorted(selection, budget, layer, map), no_return(layer, map, ledger)};
}

}  // namespace kvw
