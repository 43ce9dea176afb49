#include "core/state/tick.h"

#include <exception>
#include <variant>

#include <spdlog/spdlog.h>

#include "core/cache/cache_error.h"
#include "core/state/state_error.h"

namespace kvw {

namespace {

const char* action_name(const Action& a) {
    if (std::holds_alternative<ReplacePairAction>(a.op)) return "replace_pair";
    if (std::holds_alternative<DeleteAction>(a.op)) return "delete";
    if (std::holds_alternative<InsertAction>(a.op)) return "insert";
    if (std::holds_alternative<CollapseAction>(a.op)) return "collapse";
    if (std::holds_alternative<ExpandAction>(a.op)) return "expand";
    return "add";
}

}  // namespace

SequenceShape sequence_shape(const StateManager& state) {
    SequenceShape shape;
    for (int l = 0; l < state.n_layers(); ++l) shape.rows_per_layer.push_back(state.rows(l));
    shape.capacity = state.cache().capacity();
    shape.adds_overwrite = state.ring() != nullptr;
    shape.vocab_size = state.engine().model().config.vocab_size;
    shape.wlod_k = state.wlod_k();
    for (int l = 0; l < state.n_layers(); ++l) {
        // Every tick asks: without gists, no level per row (22 x 100,000 of them a tick).
        std::vector<uint8_t> levels;
        if (state.has_gists()) {
            const std::vector<int64_t>& ids = state.layer_map(l).pos2ledger;
            levels.assign(ids.size(), 0);
            for (size_t r = 0; r < ids.size(); ++r)
                if (const GistRecord* g = state.gist(ids[r])) levels[r] = uint8_t(g->level);
        }
        shape.row_levels.push_back(std::move(levels));
        shape.starts_with_bos.push_back(state.starts_with_bos(l));
        shape.pinned_rows.push_back(state.pinned_rows(l));
    }
    return shape;
}

TickResult apply_action_list(StateManager& state, const ActionList& actions, int64_t tick,
                             const DecodeBlock& block) {
    TickResult result;
    result.tick = tick;
    result.rejections = validate_action_list(actions, sequence_shape(state));
    if (!result.rejections.empty()) {
        result.rejected = true;
        return result;
    }

    // application_order() puts the adds last; they go in as one append.
    std::vector<int> edits;
    std::vector<int32_t> appended;
    for (int i : application_order(actions)) {
        if (const auto* add = std::get_if<AddAction>(&actions[size_t(i)].op))
            appended.push_back(add->token_id);
        else
            edits.push_back(i);
    }

    const MirrorSnapshot before = state.snapshot_mirror();
    int current = -1;
    try {
        for (int i : edits) {
            current = i;
            const Action& a = actions[size_t(i)];
            if (const auto* r = std::get_if<ReplacePairAction>(&a.op))
                state.replace_pair(a.layers, r->original_pos1, r->original_pos2, r->new_token_ids,
                                   tick);
            else if (const auto* in = std::get_if<InsertAction>(&a.op))
                state.insert(a.layers, in->pos, in->token_ids, EntryKind::Inserted, tick);
            else if (const auto* c = std::get_if<CollapseAction>(&a.op))
                state.collapse(a.layers, c->pos, c->level, tick);
            else if (const auto* e = std::get_if<ExpandAction>(&a.op))
                state.expand(a.layers, e->pos, tick);
            else if (const auto* del = std::get_if<DeleteAction>(&a.op))
                state.remove(a.layers, del->pos, tick, del->cause);
            ++result.actions_applied;
        }
        current = -1;
        if (!appended.empty()) {
            state.make_block_room(int(appended.size()) + block.more, tick);
            state.append(appended, EntryKind::Generated, tick);
            result.actions_applied += int(appended.size());
            for (int i = 0; i < block.more; ++i) {
                const int32_t token = block.next_token(state.last_logits());
                result.decoded.push_back(token);
                state.append(std::span<const int32_t>(&token, 1), EntryKind::Generated, tick);
            }
        }
    } catch (const std::exception& e) {
        const auto* se = dynamic_cast<const StateError*>(&e);
        // A NaN made on the way (a gist, K / V, the logits) is not the list's fault, and a
        // rebuild would make it again: the session takes the whole command back instead
        // (Session::rethrow_rewound), the sampler's and the proposer's state included.
        if (se && se->kind() == StateErrorKind::NonFinite) throw;
        result.aborted = true;
        result.failed_action = current;
        if (se)
            result.failed_primitive = se->primitive();
        else if (dynamic_cast<const CapacityExceeded*>(&e))
            result.failed_primitive = "capacity";
        else
            result.failed_primitive =
                current >= 0 ? action_name(actions[size_t(current)]) : "append";
        result.abort_reason = e.what();
        spdlog::error("tick {} aborted: action {} ({}), primitive {}: {}; rebuilding from mirror",
                      tick, current, current >= 0 ? action_name(actions[size_t(current)]) : "add",
                      result.failed_primitive, result.abort_reason);
        state.restore_mirror(before, tick);
        state.rebuild_from_mirror();
        result.rebuilt = true;
    }
    return result;
}

}  // namespace kvw
