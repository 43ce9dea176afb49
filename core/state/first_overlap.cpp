#include "core/state/first_overlap.h"

#include <algorithm>
#include <climits>

namespace kvw {
namespace {

constexpr int kNone = INT_MAX;

// Intervals go in with increasing indices; first_index() answers the lowest index among those
// in so far that intersect a query interval. The leaves are the elementary segments between
// the sorted bounds {first, last + 1} of the intervals that will go in, so an interval covers
// whole leaves. A node keeps the lowest index covering any leaf below it (`any_`) and the
// lowest covering all of them (`all_`); as indices only grow, a leaf's first cover is final.
class FirstCover {
public:
    explicit FirstCover(std::vector<int64_t> bounds) : bounds_(std::move(bounds)) {
        std::sort(bounds_.begin(), bounds_.end());
        bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
        leaves_ = std::max(int(bounds_.size()) - 1, 0);
        any_.assign(size_t(4 * std::max(leaves_, 1)), kNone);
        all_.assign(any_.size(), kNone);
    }

    void add(RowSpan s, int index) {
        const int a =
            int(std::lower_bound(bounds_.begin(), bounds_.end(), s.first) - bounds_.begin());
        const int b =
            int(std::lower_bound(bounds_.begin(), bounds_.end(), s.last + 1) - bounds_.begin()) - 1;
        cover(1, 0, leaves_ - 1, a, b, index);
    }

    int first_index(RowSpan s) const {
        if (leaves_ == 0) return kNone;
        // The leaves holding s.first and s.last; before the first bound or from the last on,
        // no interval reaches.
        const auto leaf = [&](int64_t x) {
            return int(std::upper_bound(bounds_.begin(), bounds_.end(), x) - bounds_.begin()) - 1;
        };
        const int a = std::max(leaf(s.first), 0);
        const int b = std::min(leaf(s.last), leaves_ - 1);
        return a > b ? kNone : lowest(1, 0, leaves_ - 1, a, b);
    }

private:
    void cover(int node, int lo, int hi, int a, int b, int index) {
        if (b < lo || hi < a) return;
        any_[size_t(node)] = std::min(any_[size_t(node)], index);
        if (a <= lo && hi <= b) {
            all_[size_t(node)] = std::min(all_[size_t(node)], index);
            return;
        }
        const int mid = (lo + hi) / 2;
        cover(2 * node, lo, mid, a, b, index);
        cover(2 * node + 1, mid + 1, hi, a, b, index);
    }

    int lowest(int node, int lo, int hi, int a, int b) const {
        if (b < lo || hi < a) return kNone;
        if (a <= lo && hi <= b) return any_[size_t(node)];
        // The query meets this node, so an index covering all of it meets the query too.
        const int mid = (lo + hi) / 2;
        return std::min({all_[size_t(node)], lowest(2 * node, lo, mid, a, b),
                         lowest(2 * node + 1, mid + 1, hi, a, b)});
    }

    std::vector<int64_t> bounds_;
    int leaves_ = 0;
    std::vector<int> any_;
    std::vector<int> all_;
};

}  // namespace

std::optional<RowSpan> row_span(const Action& action) {
    if (const auto* r = std::get_if<ReplacePairAction>(&action.op))
        return RowSpan{std::min(r->original_pos1, r->original_pos2),
                       std::max(r->original_pos1, r->original_pos2)};
    if (const auto* d = std::get_if<DeleteAction>(&action.op)) return RowSpan{d->pos, d->pos};
    if (const auto* i = std::get_if<InsertAction>(&action.op)) return RowSpan{i->pos, i->pos};
    if (const auto* c = std::get_if<CollapseAction>(&action.op)) return RowSpan{c->pos, c->pos};
    if (const auto* e = std::get_if<ExpandAction>(&action.op)) return RowSpan{e->pos, e->pos};
    return std::nullopt;
}

std::vector<int> first_earlier_overlaps(const ActionList& list,
                                        const std::vector<std::vector<int>>& layers_of,
                                        int n_layers) {
    // Group 0 holds the actions on every layer; group 1 + l those restricted to layer l.
    const auto home_groups = [&](size_t i) {
        if (list[i].layers.empty()) return std::vector<int>{0};
        std::vector<int> groups;
        for (const int l : layers_of[i]) groups.push_back(1 + l);
        return groups;
    };
    std::vector<std::optional<RowSpan>> spans(list.size());
    std::vector<std::vector<int64_t>> bounds(size_t(n_layers) + 1);
    for (size_t i = 0; i < list.size(); ++i) {
        if (layers_of[i].empty()) continue;  // on no existing layer: meets nothing
        spans[i] = row_span(list[i]);
        if (!spans[i]) continue;
        for (const int g : home_groups(i)) {
            bounds[size_t(g)].push_back(spans[i]->first);
            bounds[size_t(g)].push_back(spans[i]->last + 1);
        }
    }
    std::vector<FirstCover> trees;
    trees.reserve(bounds.size());
    for (std::vector<int64_t>& b : bounds) trees.emplace_back(std::move(b));

    std::vector<int> first(list.size(), -1);
    for (size_t i = 0; i < list.size(); ++i) {
        if (!spans[i]) continue;
        // An action on every layer meets every group; a restricted one meets the actions on
        // every layer and those sharing one of its layers.
        int best = trees[0].first_index(*spans[i]);
        if (list[i].layers.empty())
            for (size_t g = 1; g < trees.size(); ++g)
                best = std::min(best, trees[g].first_index(*spans[i]));
        else
            for (const int l : layers_of[i])
                best = std::min(best, trees[size_t(1 + l)].first_index(*spans[i]));
        if (best != kNone) first[i] = best;
        for (const int g : home_groups(i)) trees[size_t(g)].add(*spans[i], int(i));
    }
    return first;
}

}  // namespace kvw
