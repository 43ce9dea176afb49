// The tick transaction (ARCHITECTURE §2.1): Step 1 sample, Step 2 brightness, Step 3 proposer
// and conflict resolution, Step 4 pre-flight + application.
#include <algorithm>
#include <chrono>
#include <optional>

#include <spdlog/spdlog.h>

#include "core/policy/conflict_resolution.h"
#include "core/session/command/sequence_commands.h"
#include "core/session/fault_scope.h"
#include "core/session/session.h"
#include "core/session/trace_events.h"
#include "core/state/state_error.h"

namespace kvw {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

// Brightness lives in the ledger (per record, per layer); this walks the live rows, once.
void Session::update_brightness() {
    const auto& mass = state_->last_attention_mass();
    const std::vector<double> totals = mass_totals(mass);
    const BrightnessParams params = options_.brightness;  // a copy: the writes cannot alias it
    brightness_before_.resize(size_t(state_->n_layers()));
    for (int l = 0; l < state_->n_layers(); ++l) {
        const int rows = state_->rows(l);
        // The mass is gone when an edit moved rows since the last append: decay only.
        const bool measured = size_t(l) < mass.size() && int(mass[size_t(l)].size()) == rows;
        const std::optional<double> factor =
            measured ? share_factor(totals[size_t(l)], size_t(rows)) : std::nullopt;
        const float* const row_mass = factor ? mass[size_t(l)].data() : nullptr;
        const double scale = factor.value_or(0.0);
        state_->update_brightness(
            l,
            [row_mass, scale, params](size_t row, float b) {
                return next_brightness(b, row_mass ? float(row_mass[row] * scale) : 0.0f, params);
            },
            brightness_before_[size_t(l)]);
    }
}

void Session::restore_brightness() {
    for (int l = 0; l < state_->n_layers(); ++l) {
        state_->set_brightness(l, state_->layer_map(l).pos2ledger, brightness_before_[size_t(l)]);
    }
}

ActionList Session::propose_and_merge() {
    std::vector<std::vector<int32_t>> row_tokens;
    std::vector<std::vector<float>> brightness;
    for (int l = 0; l < state_->n_layers() && proposer_->reads_rows(); ++l) {
        row_tokens.push_back(state_->tokens(l));
        brightness.push_back(state_->ledger().brightness(l, state_->layer_map(l).pos2ledger));
    }
    const SequenceShape shape = sequence_shape(*state_);
    ProposerInput input{row_tokens, brightness, model_->tokenizer, state_.get()};
    if (wlod_) {
        input.row_levels = &shape.row_levels;
        input.wlod_k = state_->wlod_k();
        input.wlod_max = options_.wlod_max;
        for (int pinned : shape.pinned_rows)
            input.pinned_rows = std::max(input.pinned_rows, pinned);
    }
    const ActionList proposed = proposer_->propose(input);
    MergedActions merged = merge_actions(injected_, proposed);
    for (const DroppedAction& d : merged.dropped)
        spdlog::debug("tick {}: proposed action {} dropped, overlaps kept action {}", tick_ + 1,
                      d.proposed_index, d.kept_index);
    return std::move(merged.actions);
}

TickResult Session::apply_tick_list(ActionList& list, int first_proposed, int end_proposed,
                                    const DecodeBlock& block) {
    const FaultScope fault(*state_, armed_fault_);
    TickResult result = apply_action_list(*state_, list, tick_ + 1, block);
    // A proposer sees one view of the rows (focus reads layer 0's for every layer): one proposal
    // that does not fit would otherwise refuse the sampled token too, on every tick after it.
    std::vector<ValidationError> dropped;
    while (result.rejected && options_.invalid_proposals == InvalidProposals::Drop) {
        std::vector<int> refused;
        for (const ValidationError& e : result.rejections)
            if (e.action_index >= first_proposed && e.action_index < end_proposed) {
                refused.push_back(e.action_index);
                dropped.push_back(e);
            }
        if (refused.empty()) break;
        std::sort(refused.begin(), refused.end());
        refused.erase(std::unique(refused.begin(), refused.end()), refused.end());
        for (auto i = refused.rbegin(); i != refused.rend(); ++i) list.erase(list.begin() + *i);
        end_proposed -= int(refused.size());
        spdlog::debug("tick {}: {} proposed action(s) refused by pre-flight, dropped: {}",
                      tick_ + 1, refused.size(), dropped.back().message);
        result = apply_action_list(*state_, list, tick_ + 1, block);
    }
    result.dropped_proposals = std::move(dropped);
    return result;
}

TickResult Session::step() { return tick({}, block_tokens()); }

TickResult Session::step_one_token() { return tick({}, 1); }

TickResult Session::step_forced(int32_t token) { return tick(std::span<const int32_t>(&token, 1)); }

TickResult Session::step_forced(std::span<const int32_t> tokens) {
    if (tokens.empty()) throw StateError(StateErrorKind::NoItems, "step", "no forced tokens given");
    return tick(tokens);
}

int Session::block_tokens() const {
    return options_.layout == CacheLayout::Ring ? options_.ring.tokens_per_block : 1;
}

TickResult Session::tick(std::span<const int32_t> forced, int sampled) {
    require_started("step");
    check_model_files(*model_);
    try {
        const Clock::time_point start = Clock::now();
        StepTimings t;

        const bool is_forced = !forced.empty();
        const int32_t token = is_forced ? forced[0] : sampler_.sample(state_->last_logits());
        t.sample_ms = ms_since(start);
        // Block decoding: the block's other tokens are decoded in Step 4, each from the logits of
        // the row appended before it (sampling them counts as Step 4's time).
        DecodeBlock block;
        block.more = is_forced ? int(forced.size()) - 1 : sampled - 1;
        size_t next_forced = 1;
        block.next_token = [&](const std::vector<float>& logits) {
            return is_forced ? forced[next_forced++] : sampler_.sample(logits);
        };

        Clock::time_point mark = Clock::now();
        update_brightness();
        t.brightness_ms = ms_since(mark);

        mark = Clock::now();
        const int n_injected = int(injected_.size());
        ActionList list = propose_and_merge();  // the injected actions first
        const int end_proposed = int(list.size());
        list.push_back(Action{AddAction{token}, {}});
        t.propose_ms = ms_since(mark);

        mark = Clock::now();
        const int64_t first_new = state_->ledger().size();
        const double forward_before = state_->forward_ms();
        TickResult result = apply_tick_list(list, n_injected, end_proposed, block);
        t.apply_ms = ms_since(mark);
        t.forward_ms = state_->forward_ms() - forward_before;
        mark = Clock::now();  // the proposer's bookkeeping counts as Step 3
        proposer_->observe(*state_, !result.rejected && !result.aborted);
        t.propose_ms += ms_since(mark);

        // A rejected list changes nothing, brightness included; the injected actions that made it
        // fail are dropped so that the next step can go on.
        if (result.rejected) {
            restore_brightness();
            // The caller reports the refusal (the window's log, the CLI's output): once is enough.
            spdlog::debug("tick {} rejected: {} fault(s); injected actions dropped", tick_ + 1,
                          result.rejections.size());
        } else {
            tick_ = result.tick;
            light_new_records(first_new);
        }
        injected_.clear();
        t.total_ms = ms_since(start);
        timings_ = t;
        summed_timings_.sample_ms += t.sample_ms;
        summed_timings_.brightness_ms += t.brightness_ms;
        summed_timings_.propose_ms += t.propose_ms;
        summed_timings_.apply_ms += t.apply_ms;
        summed_timings_.total_ms += t.total_ms;
        summed_timings_.forward_ms += t.forward_ms;
        ++timed_ticks_;
        note_result(result, list);
        // The command part (a forced tick's tokens), then the outcomes beside it.
        nlohmann::json event = command::Tick{{forced.begin(), forced.end()}}.to_json();
        event["tick"] = tick_;
        event["token"] = token;
        event["actions"] = actions_json(last_actions_);
        event["result"] = tick_result_json(result);
        event["invariants_pass"] = invariants_.all_passed();
        event["state_hash"] = hash_hex(state_hash());
        if (!is_forced && block.more > 0) {  // the sampled block, whether or not it went in
            std::vector<int32_t> sampled{token};
            sampled.insert(sampled.end(), result.decoded.begin(), result.decoded.end());
            event["tokens"] = sampled;
        }
        if (const RingLayout* ring = state_->ring()) {
            nlohmann::json layers = nlohmann::json::array();
            for (int l = 0; l < ring->n_layers(); ++l)
                layers.push_back(ring_frame_json(ring_frame(*ring, l)));
            event["ring"] = std::move(layers);
        }
        trace_.add(std::move(event));
        if (!result.rejected) checkpoints_.after_tick(*this);
        return result;
    } catch (const StateError& e) {
        rethrow_rewound(e);
    }
}

}  // namespace kvw
