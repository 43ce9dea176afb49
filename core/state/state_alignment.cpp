// Numeric alignment: reference passes over the mirror, rebuild, suffix recompute and drift.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/state/finite_check.h"
#include "core/state/state_error.h"
#include "core/state/state_manager.h"

namespace kvw {

namespace {

bool same_prefix(const std::vector<int64_t>& a_tokens, const std::vector<int32_t>& a_phases,
                 const std::vector<int64_t>& b_tokens, const std::vector<int32_t>& b_phases,
                 int n) {
    return int(a_tokens.size()) >= n && int(b_tokens.size()) >= n &&
           std::equal(a_tokens.begin(), a_tokens.begin() + n, b_tokens.begin()) &&
           std::equal(a_phases.begin(), a_phases.begin() + n, b_phases.begin());
}

}  // namespace

std::vector<int64_t> StateManager::row_keys(int layer) const {
    std::vector<int64_t> out;
    for (int64_t id : layer_map(layer).pos2ledger)
        out.push_back(gists_.count(id) ? -2 - id : int64_t(ledger_.at(id).token_id));
    return out;
}

Item StateManager::item_of_key(int64_t key) const {
    if (key >= 0) return Item::of_token(int32_t(key));
    return Item{-1, gists_.at(-2 - key).embedding};
}

// Layers holding the same (tokens, phases) list share one forward pass. A layer's K/V depend on
// every layer below it, so the pass runs the list through the whole model and each layer of the
// group keeps its own K/V. Rows before from_row are reused as context only when every layer
// holds that same prefix in both mirror and cache; otherwise the group is recomputed from row 0.
StateManager::Recompute StateManager::reference(int from_row) const {
    const int L = n_layers();
    std::vector<std::vector<int64_t>> toks(static_cast<size_t>(L));
    std::vector<std::vector<int32_t>> phases(toks.size());
    for (int l = 0; l < L; ++l) {
        toks[size_t(l)] = row_keys(l);
        phases[size_t(l)] = layer_map(l).rope_pos;
    }
    Recompute rec;
    rec.first_row.assign(size_t(L), 0);
    rec.pass.assign(size_t(L), -1);
    std::vector<bool> done(size_t(L), false);
    for (int rep = 0; rep < L; ++rep) {
        if (done[size_t(rep)]) continue;
        const auto& T = toks[size_t(rep)];
        const auto& P = phases[size_t(rep)];
        const int n = int(T.size());
        std::vector<int> group;
        for (int l = rep; l < L; ++l)
            if (!done[size_t(l)] && toks[size_t(l)] == T && phases[size_t(l)] == P) {
                group.push_back(l);
                done[size_t(l)] = true;
            }
        int start = std::min(from_row, n);
        for (int m = 0; m < L && start > 0; ++m)
            if (cache_->rows(m) != rows(m) ||
                !same_prefix(toks[size_t(m)], phases[size_t(m)], T, P, start))
                start = 0;
        for (int l : group) rec.first_row[size_t(l)] = start;
        if (start == n) continue;

        std::vector<Item> items;
        for (int i = start; i < n; ++i) items.push_back(item_of_key(T[size_t(i)]));
        std::vector<LayerContext> context;
        for (int m = 0; m < L; ++m)
            context.push_back(context_view(m, start));  // even empty: it carries the types
        const bool has_layer0 = group.front() == 0;
        ForwardOutput out = run_forward(items, std::span<const int32_t>(P).subspan(size_t(start)),
                                        context, ForwardOptions{has_layer0, false});
        const std::string rows_made =
            "the recomputed rows " + std::to_string(start) + ".." + std::to_string(n - 1);
        // Counted where the rows are; the group's layers come down only to name a non-finite
        // value (the pass's other layers are not used).
        if (out.k.nonfinite() + out.v.nonfinite() > 0)
            for (int l : group) {
                require_finite(out.k.host(l), "recompute", l, "K of " + rows_made);
                require_finite(out.v.host(l), "recompute", l, "V of " + rows_made);
            }
        if (has_layer0) require_finite(out.logits, "recompute", -1, "logits of " + rows_made);
        if (has_layer0) rec.logits = std::move(out.logits);
        for (int l : group) rec.pass[size_t(l)] = int(rec.passes.size());
        rec.passes.push_back(std::move(out));
    }
    return rec;
}

void StateManager::rebuild_from_mirror() { recompute_suffix(0); }

void StateManager::recompute_suffix(int from_row) {
    changed();
    if (from_row < 0)
        throw StateError(StateErrorKind::RowOutOfRange, "recompute_suffix",
                         "from_row " + std::to_string(from_row) + " is negative");
    // Every row keeps its record and index, so the last append's attention mass still belongs
    // to the rows it was measured on and is kept (ARCHITECTURE §14, "Brightness").
    Recompute rec = reference(from_row);
    for (int l = 0; l < n_layers(); ++l) {
        const int first = rec.first_row[size_t(l)];
        const int n = rows(l) - first;
        if (n == 0 && cache_->rows(l) == rows(l)) continue;
        cache_->truncate(l, std::min(first, cache_->rows(l)));
        if (n > 0) cache_->append(l, rec.of(l).rows(l), n);
    }
    if (!rec.logits.empty()) last_logits_ = std::move(rec.logits);
}

float StateManager::default_drift_tolerance() const {
    return std::max(kv_type_drift_tolerance(cache_->storage().k),
                    kv_type_drift_tolerance(cache_->storage().v));
}

DriftReport StateManager::measure_drift(std::optional<float> tolerance_given) const {
    const Recompute rec = reference(0);
    const int kv_dim = cache_->kv_dim();
    const float tolerance = tolerance_given.value_or(default_drift_tolerance());
    DriftReport report;
    report.tolerance = tolerance;
    for (int l = 0; l < n_layers(); ++l) {
        LayerDrift d;
        d.tolerance = tolerance;
        const int ref_rows = rows(l);
        const int cached_rows = cache_->rows(l);
        const int n = std::max(ref_rows, cached_rows);
        const int both = std::min(ref_rows, cached_rows);
        // Rows the cache and the mirror do not both hold drift without bound.
        d.k.assign(size_t(n), std::numeric_limits<float>::infinity());
        d.v.assign(size_t(n), std::numeric_limits<float>::infinity());
        // Compared where the rows are, the reference where its pass left it, 1,024 rows a call:
        // only the numbers cross.
        constexpr int kRunRows = 1024;
        for (int r = 0; r < both; r += kRunRows) {
            const int m = std::min(kRunRows, both - r);
            cache_->drift_rows(l, r, m, rec.of(l).rows(l).from(r, kv_dim), d.k.data() + r,
                               d.v.data() + r);
        }
        for (int r = 0; r < n; ++r) {
            if (r < both) {
                // The recomputation is finite (reference checks it), so a NaN here is the
                // cached row's; std::max inside the error would have read it as 0 drift.
                const float pair[] = {d.k[size_t(r)], d.v[size_t(r)]};
                require_finite(pair, "drift", l,
                               "the K and V drift of cached row " + std::to_string(r));
            }
            if (d.first_stale_row < 0 && d.stale(r)) d.first_stale_row = r;
        }
        if (report.first_diverging_layer < 0 && d.first_stale_row >= 0)
            report.first_diverging_layer = l;
        report.layers.push_back(std::move(d));
    }
    return report;
}

}  // namespace kvw
