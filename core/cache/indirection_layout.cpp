#include "core/cache/indirection_layout.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace kvw {

IndirectionLayout::IndirectionLayout(int n_layers, int kv_dim, int capacity, KvStorage storage,
                                     double max_dead_fraction, KvRowDevice& device)
    : KvLayout(n_layers, kv_dim, capacity, storage, device),
      max_dead_fraction_(max_dead_fraction),
      layers_(size_t(n_layers)),
      renumber_(size_t(capacity)) {
    if (!(max_dead_fraction > 0.0 && max_dead_fraction < 1.0))
        throw std::invalid_argument("indirection layout: the dead fraction must be in (0, 1)");
    for (Layer& L : layers_) L.index.reserve(size_t(capacity));  // edits never reallocate it
}

int IndirectionLayout::physical_rows(int layer) const {
    rows(layer);  // validates the layer
    return layers_[size_t(layer)].used;
}

void IndirectionLayout::insert_rows(int layer, int row, const NewRows& rows, int n) {
    Layer& L = layers_[size_t(layer)];
    if (L.used + n > capacity()) compact(layer);  // room is checked: the live rows leave enough
    slab().write(layer, L.used, rows, n);
    slab().count_moved((L.index.size() - size_t(row)) * sizeof(int32_t));
    const auto at = L.index.insert(L.index.begin() + row, size_t(n), 0);
    std::iota(at, at + n, int32_t(L.used));
    L.used += n;
}

void IndirectionLayout::remove_row(int layer, int row) {
    Layer& L = layers_[size_t(layer)];
    slab().count_moved((L.index.size() - size_t(row) - 1) * sizeof(int32_t));
    L.index.erase(L.index.begin() + row);
    compact_if_fragmented(layer);
}

void IndirectionLayout::truncate_rows(int layer, int rows) {
    layers_[size_t(layer)].index.resize(size_t(rows));
    compact_if_fragmented(layer);
}

void IndirectionLayout::reset_rows() {
    for (Layer& L : layers_) {
        L.used = 0;
        L.index.clear();
    }
}

void IndirectionLayout::compact_if_fragmented(int layer) {
    const Layer& L = layers_[size_t(layer)];
    const int dead = L.used - int(L.index.size());
    if (dead > 0 && double(dead) > max_dead_fraction_ * double(L.used)) compact(layer);
}

// Keeps the live slab rows in slab order, so every run of them moves towards row 0 with one
// memmove and none lands on a row still to be read; the index is renumbered after.
void IndirectionLayout::compact(int layer) {
    Layer& L = layers_[size_t(layer)];
    std::fill_n(renumber_.begin(), L.used, -1);
    for (int32_t p : L.index) renumber_[size_t(p)] = 0;
    int next = 0;
    for (int p = 0; p < L.used;) {
        if (renumber_[size_t(p)] < 0) {
            ++p;
            continue;
        }
        const int run_start = p;
        for (; p < L.used && renumber_[size_t(p)] >= 0; ++p)
            renumber_[size_t(p)] = next + (p - run_start);
        slab().move(layer, next, run_start, p - run_start);
        next += p - run_start;
    }
    for (int32_t& p : L.index) p = renumber_[size_t(p)];
    L.used = next;
    ++compactions_;
}

int IndirectionLayout::physical_row(int layer, int row) const {
    return layers_[size_t(layer)].index[size_t(row)];
}

LayerContext IndirectionLayout::layer_view(int layer, int rows) const {
    return slab().context(layer, rows, layers_[size_t(layer)].index.data());
}

}  // namespace kvw
