#include "core/state/action_validation.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <type_traits>
#include <utility>

#include "core/state/first_overlap.h"

namespace kvw {
namespace {

bool share_a_layer(const std::vector<int>& a, const std::vector<int>& b) {
    if (a.empty() || b.empty()) return true;
    return std::any_of(a.begin(), a.end(),
                       [&](int l) { return std::find(b.begin(), b.end(), l) != b.end(); });
}

std::string action_name(const Action& action) {
    return std::visit(
        [](const auto& op) -> std::string {
            using T = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<T, ReplacePairAction>)
                return "replace_pair " + std::to_string(op.original_pos1) + "," +
                       std::to_string(op.original_pos2);
            else if constexpr (std::is_same_v<T, AddAction>)
                return "add " + std::to_string(op.token_id);
            else if constexpr (std::is_same_v<T, InsertAction>)
                return "insert " + std::to_string(op.pos);
            else if constexpr (std::is_same_v<T, CollapseAction>)
                return "collapse " + std::to_string(op.pos) + " level " + std::to_string(op.level);
            else if constexpr (std::is_same_v<T, ExpandAction>)
                return "expand " + std::to_string(op.pos);
            else
                return "delete " + std::to_string(op.pos);
        },
        action.op);
}

// Accumulates the errors of one list, each prefixed with the action it belongs to. The first
// kMaxListedFaults are kept; the rest are only counted, so that a list of thousands of bad
// actions gives a message of bounded size.
class Report {
public:
    explicit Report(const ActionList& list) : list_(list) {}

    void add(ValidationRule rule, int index, std::string field, const std::string& detail,
             int other_index = -1) {
        if (errors_.size() == kMaxListedFaults) {
            ++unlisted_;
            return;
        }
        std::string message = "action " + std::to_string(index) + " (" +
                              action_name(list_[size_t(index)]) + "): " + detail;
        errors_.push_back({rule, index, std::move(field), std::move(message), other_index});
    }
    std::vector<ValidationError> take() {
        if (unlisted_ > 0) {
            ValidationError more{ValidationRule::MoreFaults, -1, "", "", -1, unlisted_};
            more.message = "and " + std::to_string(unlisted_) + " more faults (" +
                           std::to_string(unlisted_ + int64_t(errors_.size())) + " in all)";
            errors_.push_back(std::move(more));
        }
        return std::move(errors_);
    }

private:
    const ActionList& list_;
    std::vector<ValidationError> errors_;
    int64_t unlisted_ = 0;
};

// The layers an action affects that exist; reports the ones that do not and duplicates.
std::vector<int> affected_layers(const Action& action, int index, int n_layers, Report& report) {
    std::vector<int> layers;
    if (action.layers.empty()) {
        layers.resize(size_t(n_layers));
        std::iota(layers.begin(), layers.end(), 0);
        return layers;
    }
    for (size_t i = 0; i < action.layers.size(); ++i) {
        const int l = action.layers[i];
        const std::string field = "layers[" + std::to_string(i) + "]";
        if (l < 0 || l >= n_layers) {
            report.add(ValidationRule::LayerOutOfRange, index, field,
                       field + " = " + std::to_string(l) + " is outside the " +
                           std::to_string(n_layers) + " layers");
        } else if (std::find(layers.begin(), layers.end(), l) != layers.end()) {
            report.add(ValidationRule::DuplicateLayer, index, field,
                       field + " = " + std::to_string(l) + " is listed twice");
        } else {
            layers.push_back(l);
        }
    }
    return layers;
}

// `end_allowed`: pos may equal the row count (an insert after the last row).
void check_position(int pos, const char* field, int index, const std::vector<int>& layers,
                    const SequenceShape& shape, Report& report, bool end_allowed = false) {
    // The affected layer with the fewest rows decides; naming it makes the fault findable.
    const auto fewest = std::min_element(layers.begin(), layers.end(), [&](int a, int b) {
        return shape.rows_per_layer[size_t(a)] < shape.rows_per_layer[size_t(b)];
    });
    if (pos >= 0 && (fewest == layers.end() ||
                     pos < shape.rows_per_layer[size_t(*fewest)] + (end_allowed ? 1 : 0)))
        return;
    const std::string where = fewest == layers.end()
                                  ? std::string("no layer")
                                  : "layer " + std::to_string(*fewest) + " with " +
                                        std::to_string(shape.rows_per_layer[size_t(*fewest)]) +
                                        " rows";
    report.add(ValidationRule::PositionOutOfRange, index, field,
               std::string(field) + " = " + std::to_string(pos) + " is outside " + where);
}

void check_token(int32_t id, const std::string& field, int index, const SequenceShape& shape,
                 Report& report) {
    if (id >= 0 && id < shape.vocab_size) return;
    report.add(ValidationRule::TokenOutOfVocabulary, index, field,
               field + " = " + std::to_string(id) + " is outside the vocabulary of " +
                   std::to_string(shape.vocab_size) + " tokens");
}

// The wLOD structure of the sequence (ARCHITECTURE §14), from shape.row_levels: per layer, the
// first token of each row and the last gist row.
struct WlodRows {
    std::vector<std::vector<int64_t>> first_leaf;  // [layer][row + 1]
    std::vector<int> last_gist;                    // [layer]; -1: none
    int k = 0;

    // Made only for a list with an action at a row (a tick's adds have none): the sums read
    // every row of every layer, 22 x 100,000 a tick at the sizes the window is built for.
    WlodRows(const SequenceShape& shape, const ActionList& list) : k(shape.wlod_k) {
        if (k < 2 || std::none_of(list.begin(), list.end(),
                                  [](const Action& a) { return row_span(a).has_value(); }))
            return;
        for (int l = 0; l < int(shape.row_levels.size()); ++l) {
            std::vector<int64_t> first{0};
            int last = -1;
            for (int r = 0; r < shape.rows_per_layer[size_t(l)]; ++r) {
                const uint8_t level = shape.row_level(l, r);
                first.push_back(first.back() + span(level));
                if (level > 0) last = r;
            }
            first_leaf.push_back(std::move(first));
            last_gist.push_back(last);
        }
    }
    bool known(int layer) const { return k >= 2 && size_t(layer) < first_leaf.size(); }
    int64_t span(int level) const { return level == 0 ? 1 : level == 1 ? k : int64_t(k) * k; }
};

// Why the block of `level` at `pos` cannot be collapsed in `layer`; empty when it can.
std::string block_fault(const WlodRows& w, const SequenceShape& shape, int layer, int pos,
                        int level) {
    const int rows = shape.rows_per_layer[size_t(layer)];
    const std::vector<int64_t>& first = w.first_leaf[size_t(layer)];
    const int64_t span = w.span(level);
    const std::string where = " in layer " + std::to_string(layer);
    if (first[size_t(pos)] % span != 0)
        return "row " + std::to_string(pos) + where + " starts at token " +
               std::to_string(first[size_t(pos)]) + ", not at a multiple of " +
               std::to_string(span);
    int r = pos;
    for (; r < rows && first[size_t(r)] - first[size_t(pos)] < span; ++r)
        if (shape.row_level(layer, r) >= level)
            return "row " + std::to_string(r) + where + " is already a level-" +
                   std::to_string(shape.row_level(layer, r)) + " gist";
    if (first[size_t(r)] - first[size_t(pos)] != span)
        return "the block at row " + std::to_string(pos) + where + " has " +
               std::to_string(first[size_t(r)] - first[size_t(pos)]) + " of its " +
               std::to_string(span) + " tokens";
    return {};
}

void check_wlod(const Action& action, int index, const std::vector<int>& layers,
                const SequenceShape& shape, const WlodRows& w, Report& report) {
    const std::optional<RowSpan> span = row_span(action);
    if (!span) return;
    const int pos = int(span->first);
    for (int l : layers) {
        if (!w.known(l) || pos < 0) continue;
        const int rows = shape.rows_per_layer[size_t(l)];
        if (const auto* c = std::get_if<CollapseAction>(&action.op)) {
            if (pos >= rows || (c->level != 1 && c->level != 2)) return;
            const std::string fault = block_fault(w, shape, l, pos, c->level);
            if (fault.empty()) continue;
            report.add(ValidationRule::NotABlock, index, "pos", fault);
            return;
        }
        if (std::holds_alternative<ExpandAction>(action.op)) {
            if (pos >= rows || shape.row_level(l, pos) > 0) continue;
            report.add(ValidationRule::NotAGist, index, "pos",
                       "row " + std::to_string(pos) + " in layer " + std::to_string(l) +
                           " holds a token, not a gist");
            return;
        }
        if (w.last_gist[size_t(l)] >= pos) {
            report.add(
                ValidationRule::EditBeforeGist, index,
                std::holds_alternative<ReplacePairAction>(action.op) ? "original_pos1" : "pos",
                "row " + std::to_string(pos) + " is at or before the gist at row " +
                    std::to_string(w.last_gist[size_t(l)]) + " in layer " + std::to_string(l) +
                    "; expand it first (an edit would shift its block)");
            return;
        }
    }
}

void check_fields(const Action& action, int index, const std::vector<int>& layers,
                  const SequenceShape& shape, Report& report) {
    if (const auto* r = std::get_if<ReplacePairAction>(&action.op)) {
        check_position(r->original_pos1, "original_pos1", index, layers, shape, report);
        check_position(r->original_pos2, "original_pos2", index, layers, shape, report);
        if (r->original_pos1 >= r->original_pos2)
            report.add(ValidationRule::PairOrder, index, "original_pos2",
                       "original_pos1 = " + std::to_string(r->original_pos1) +
                           " must be below original_pos2 = " + std::to_string(r->original_pos2));
        if (r->new_token_ids.empty())
            report.add(ValidationRule::EmptyReplacement, index, "new_token_ids",
                       "new_token_ids is empty (use delete to remove rows)");
        for (size_t i = 0; i < r->new_token_ids.size(); ++i)
            check_token(r->new_token_ids[i], "new_token_ids[" + std::to_string(i) + "]", index,
                        shape, report);
    } else if (const auto* a = std::get_if<AddAction>(&action.op)) {
        check_token(a->token_id, "token_id", index, shape, report);
    } else if (const auto* d = std::get_if<DeleteAction>(&action.op)) {
        check_position(d->pos, "pos", index, layers, shape, report);
    } else if (const auto* c = std::get_if<CollapseAction>(&action.op)) {
        check_position(c->pos, "pos", index, layers, shape, report);
        if (shape.wlod_k == 0 && !shape.row_levels.empty())
            report.add(ValidationRule::WlodOff, index, "action", kNoWlodK);
        if (c->level != 1 && c->level != 2)
            report.add(ValidationRule::WlodLevel, index, "level",
                       "level = " + std::to_string(c->level) + " is not 1 or 2");
        for (int l : layers) {
            if (size_t(l) >= shape.pinned_rows.size() || c->pos < 0 ||
                c->pos >= shape.pinned_rows[size_t(l)])
                continue;
            const bool bos = c->pos == 0 && size_t(l) < shape.starts_with_bos.size() &&
                             shape.starts_with_bos[size_t(l)];
            report.add(ValidationRule::PinnedRow, index, "pos",
                       "pos = " + std::to_string(c->pos) + ": the block starts at row " +
                           std::to_string(c->pos) + " of layer " + std::to_string(l) + ", " +
                           (bos ? "which holds BOS" : "a ring sink row") +
                           "; BOS and the attention sinks are never collapsed");
            break;
        }
    } else if (const auto* e = std::get_if<ExpandAction>(&action.op)) {
        check_position(e->pos, "pos", index, layers, shape, report);
    } else if (const auto* in = std::get_if<InsertAction>(&action.op)) {
        check_position(in->pos, "pos", index, layers, shape, report, true);
        if (in->pos == 0) {
            const auto bos = std::find_if(layers.begin(), layers.end(), [&](int l) {
                return size_t(l) < shape.starts_with_bos.size() && shape.starts_with_bos[size_t(l)];
            });
            if (bos != layers.end())
                report.add(ValidationRule::InsertBeforeBos, index, "pos",
                           "pos = 0 is before BOS in row 0 of layer " + std::to_string(*bos) +
                               ": nothing can be inserted before BOS");
        }
        if (in->token_ids.empty())
            report.add(ValidationRule::EmptyReplacement, index, "token_ids",
                       "token_ids is empty (an insert needs at least one token)");
        for (size_t i = 0; i < in->token_ids.size(); ++i)
            check_token(in->token_ids[i], "token_ids[" + std::to_string(i) + "]", index, shape,
                        report);
    }
}

void check_overlaps(const ActionList& list, const std::vector<std::vector<int>>& layers_of,
                    int n_layers, Report& report) {
    const std::vector<int> first = first_earlier_overlaps(list, layers_of, n_layers);
    for (size_t j = 0; j < list.size(); ++j) {
        const int i = first[j];
        if (i < 0) continue;
        const RowSpan a = *row_span(list[size_t(i)]);
        const RowSpan b = *row_span(list[j]);
        const bool same = a.first == b.first && a.last == b.last;
        const char* field =
            std::holds_alternative<ReplacePairAction>(list[j].op) ? "original_pos1" : "pos";
        report.add(ValidationRule::Overlap, int(j), field,
                   std::string(same ? "duplicates" : "overlaps") + " action " + std::to_string(i) +
                       " (" + action_name(list[size_t(i)]) + ") on a common layer: rows " +
                       std::to_string(b.first) + ".." + std::to_string(b.last) + " against " +
                       std::to_string(a.first) + ".." + std::to_string(a.last),
                   i);
    }
}

// Collapse never grows a layer; expand adds at most K - 1 rows (0 when K is unknown: the
// StateManager then checks the room itself).
int64_t row_delta(const Action& action, const SequenceShape& shape) {
    if (const auto* r = std::get_if<ReplacePairAction>(&action.op))
        return int64_t(r->new_token_ids.size()) - 2;
    if (const auto* i = std::get_if<InsertAction>(&action.op)) return int64_t(i->token_ids.size());
    if (std::holds_alternative<CollapseAction>(action.op)) return 0;
    if (std::holds_alternative<ExpandAction>(action.op)) return std::max(shape.wlod_k - 1, 0);
    return std::holds_alternative<AddAction>(action.op) ? 1 : -1;
}

void check_capacity(const ActionList& list, const std::vector<std::vector<int>>& layers_of,
                    const SequenceShape& shape, Report& report) {
    // 64 bits: the sum of many long inserts must not wrap around under the capacity.
    std::vector<int64_t> rows(shape.rows_per_layer.begin(), shape.rows_per_layer.end());
    std::vector<bool> reported(rows.size(), false);
    for (const int index : application_order(list)) {
        if (shape.adds_overwrite && std::holds_alternative<AddAction>(list[size_t(index)].op))
            continue;
        const int64_t delta = row_delta(list[size_t(index)], shape);
        std::string overflows;  // each layer is reported once, at the action that overfills it
        for (const int l : layers_of[size_t(index)]) {
            const int64_t before = rows[size_t(l)];
            rows[size_t(l)] += delta;
            if (delta <= 0 || rows[size_t(l)] <= shape.capacity || before > shape.capacity ||
                reported[size_t(l)])
                continue;
            reported[size_t(l)] = true;
            overflows += (overflows.empty() ? "" : ", ") + std::string("layer ") +
                         std::to_string(l) + " would hold " + std::to_string(rows[size_t(l)]) +
                         " rows";
        }
        if (overflows.empty()) continue;
        const Action& action = list[size_t(index)];
        const char* field = std::holds_alternative<AddAction>(action.op)      ? "token_id"
                            : std::holds_alternative<InsertAction>(action.op) ? "token_ids"
                            : std::holds_alternative<ExpandAction>(action.op) ? "pos"
                                                                              : "new_token_ids";
        report.add(ValidationRule::CapacityExceeded, index, field,
                   overflows + ", beyond the capacity of " + std::to_string(shape.capacity));
    }
}

}  // namespace

const char* validation_rule_name(ValidationRule rule) {
    switch (rule) {
        case ValidationRule::LayerOutOfRange: return "LayerOutOfRange";
        case ValidationRule::DuplicateLayer: return "DuplicateLayer";
        case ValidationRule::PositionOutOfRange: return "PositionOutOfRange";
        case ValidationRule::PairOrder: return "PairOrder";
        case ValidationRule::EmptyReplacement: return "EmptyReplacement";
        case ValidationRule::TokenOutOfVocabulary: return "TokenOutOfVocabulary";
        case ValidationRule::Overlap: return "Overlap";
        case ValidationRule::CapacityExceeded: return "CapacityExceeded";
        case ValidationRule::TooManyActions: return "TooManyActions";
        case ValidationRule::MoreFaults: return "MoreFaults";
        case ValidationRule::WlodLevel: return "WlodLevel";
        case ValidationRule::NotABlock: return "NotABlock";
        case ValidationRule::NotAGist: return "NotAGist";
        case ValidationRule::EditBeforeGist: return "EditBeforeGist";
        case ValidationRule::InsertBeforeBos: return "InsertBeforeBos";
        case ValidationRule::PinnedRow: return "PinnedRow";
        case ValidationRule::WlodOff: return "WlodOff";
    }
    return "?";
}

bool actions_overlap(const Action& a, const Action& b) {
    const std::optional<RowSpan> sa = row_span(a);
    const std::optional<RowSpan> sb = row_span(b);
    return sa && sb && sa->first <= sb->last && sb->first <= sa->last &&
           share_a_layer(a.layers, b.layers);
}

std::vector<ValidationError> validate_action_list(const ActionList& list,
                                                  const SequenceShape& shape) {
    if (list.size() > kMaxActionsPerList)
        return {{ValidationRule::TooManyActions, -1, "",
                 "the list has " + std::to_string(list.size()) + " actions, more than the " +
                     std::to_string(kMaxActionsPerList) + " one tick accepts"}};
    Report report(list);
    const int n_layers = int(shape.rows_per_layer.size());
    std::vector<std::vector<int>> layers_of;
    layers_of.reserve(list.size());
    const WlodRows wlod(shape, list);
    for (size_t i = 0; i < list.size(); ++i) {
        layers_of.push_back(affected_layers(list[i], int(i), n_layers, report));
        check_fields(list[i], int(i), layers_of.back(), shape, report);
        check_wlod(list[i], int(i), layers_of.back(), shape, wlod, report);
    }
    check_overlaps(list, layers_of, n_layers, report);
    check_capacity(list, layers_of, shape, report);
    return report.take();
}

std::vector<int> application_order(const ActionList& list) {
    std::vector<int> positional;
    std::vector<int> adds;
    for (size_t i = 0; i < list.size(); ++i)
        (row_span(list[i]) ? positional : adds).push_back(int(i));
    std::stable_sort(positional.begin(), positional.end(), [&](int a, int b) {
        return row_span(list[size_t(a)])->first > row_span(list[size_t(b)])->first;
    });
    positional.insert(positional.end(), adds.begin(), adds.end());
    return positional;
}

ActionList order_for_application(const ActionList& list) {
    ActionList ordered;
    ordered.reserve(list.size());
    for (const int index : application_order(list)) ordered.push_back(list[size_t(index)]);
    return ordered;
}

}  // namespace kvw
