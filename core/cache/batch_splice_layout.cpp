#include "core/cache/batch_splice_layout.h"

#include <algorithm>
#include <utility>

namespace kvw {

BatchSpliceLayout::BatchSpliceLayout(int n_layers, int kv_dim, int capacity, KvStorage storage,
                                     KvRowDevice& device)
    : KvLayout(n_layers, kv_dim, capacity, storage, device),
      layers_(size_t(n_layers)),
      staged_(size_t(n_layers)) {}

BatchSpliceLayout::BatchSpliceLayout(const BatchSpliceLayout& other, KvRowDevice& device)
    : KvLayout(other), layers_(other.layers_), staged_(other.staged_.size()) {
    const size_t row_bytes = size_t(kv_dim()) * sizeof(float);
    for (size_t l = 0; l < staged_.size(); ++l) {
        const Staged& from = other.staged_[l];
        Staged& to = staged_[l];
        if (from.rows == 0) continue;
        to.k = DeviceBytes(device, size_t(from.rows) * row_bytes);
        to.v = DeviceBytes(device, size_t(from.rows) * row_bytes);
        to.rows = to.capacity = from.rows;
        transfer(device, to.k.as(), other.device(), from.k.as(), to.k.bytes());
        transfer(device, to.v.as(), other.device(), from.v.as(), to.v.bytes());
    }
}

uint64_t BatchSpliceLayout::bytes() const {
    uint64_t staged = 0;
    for (const Staged& s : staged_) staged += s.k.bytes() + s.v.bytes();
    return slab().bytes() + staged;
}

void BatchSpliceLayout::reserve_staged(Staged& s, int rows) const {
    if (rows <= s.capacity) return;
    const int capacity = std::max({rows, 2 * s.capacity, 16});
    const size_t row_bytes = size_t(kv_dim()) * sizeof(float);
    for (DeviceBytes* plane : {&s.k, &s.v}) {
        DeviceBytes grown(device(), size_t(capacity) * row_bytes);
        device().copy(grown.as(), plane->as(), size_t(s.rows) * row_bytes);
        *plane = std::move(grown);
    }
    s.capacity = capacity;
}

int BatchSpliceLayout::physical_rows(int layer) const {
    rows(layer);  // validates the layer
    return layers_[size_t(layer)].slab_rows;
}

size_t BatchSpliceLayout::split_at(Layer& layer, int row) {
    std::vector<Piece>& pieces = layer.pieces;
    int at = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
        if (row == at) return i;
        const Piece p = pieces[i];
        if (row < at + p.count) {
            const int head = row - at;
            pieces[i].count = head;
            pieces.insert(pieces.begin() + std::ptrdiff_t(i + 1),
                          Piece{p.staged, p.start + head, p.count - head});
            return i + 1;
        }
        at += p.count;
    }
    return pieces.size();
}

void BatchSpliceLayout::begin_edits(Layer& L) {
    if (L.pending) return;
    L.pieces.clear();
    if (L.slab_rows > 0) L.pieces.push_back(Piece{false, 0, L.slab_rows});  // no empty pieces
    L.pending = true;
}

void BatchSpliceLayout::insert_rows(int layer, int row, const NewRows& rows, int n) {
    Layer& L = layers_[size_t(layer)];
    if (!L.pending && row == L.rows) {  // an append with nothing pending moves nothing: write it
        slab().write(layer, row, rows, n);
        L.rows += n;
        L.slab_rows += n;
        return;
    }
    begin_edits(L);
    Staged& s = staged_[size_t(layer)];
    const int first = s.rows;
    reserve_staged(s, first + n);
    const size_t row_bytes = size_t(kv_dim()) * sizeof(float);
    for (auto [to, from] : {std::pair{&s.k, rows.k}, std::pair{&s.v, rows.v}}) {
        void* const dst = to->as<uint8_t>() + size_t(first) * row_bytes;
        if (rows.at == RowsAt::Device)
            device().copy(dst, from, size_t(n) * row_bytes);
        else
            device().upload(dst, from, size_t(n) * row_bytes);
    }
    s.rows += n;
    const size_t at = split_at(L, row);
    L.pieces.insert(L.pieces.begin() + std::ptrdiff_t(at), Piece{true, first, n});
    L.rows += n;
}

void BatchSpliceLayout::remove_row(int layer, int row) {
    Layer& L = layers_[size_t(layer)];
    begin_edits(L);
    const size_t at = split_at(L, row);
    Piece& p = L.pieces[at];
    p.start += 1;
    p.count -= 1;
    if (p.count == 0) L.pieces.erase(L.pieces.begin() + std::ptrdiff_t(at));
    L.rows -= 1;
}

void BatchSpliceLayout::truncate_rows(int layer, int rows) {
    Layer& L = layers_[size_t(layer)];
    if (L.pending) {
        const size_t cut = split_at(L, rows);  // before begin(): splitting may reallocate
        L.pieces.erase(L.pieces.begin() + std::ptrdiff_t(cut), L.pieces.end());
    } else {
        L.slab_rows = rows;
    }
    L.rows = rows;
}

void BatchSpliceLayout::reset_rows() {
    for (Layer& L : layers_) {
        L.rows = L.slab_rows = 0;
        L.pending = false;
        L.pieces.clear();
    }
    for (Staged& s : staged_) s.rows = 0;
}

// Each slab row moves at most once, straight to its final place: first the pieces that move
// towards row 0 (the deletions' gaps closing), in order, then, last first, the pieces that move
// away from it (the insertions' gaps opening) and the staged rows into those gaps. Why nothing is
// overwritten before it moved: slab pieces keep their order, so destinations are disjoint and
// ordered like the sources. A piece going down lands below the sources of the pieces after it,
// and past the source of any earlier piece still waiting (one going up: its source ends at or
// below its destination, which ends at or below this one's). Going up, last first, is the mirror
// image.
void BatchSpliceLayout::apply_pending(int layer) const {
    Layer& L = layers_[size_t(layer)];
    if (!L.pending) return;
    Staged& staged = staged_[size_t(layer)];
    const NewRows staged_rows{staged.k.as<float>(), staged.v.as<float>(), RowsAt::Device};
    int at = 0;
    for (const Piece& p : L.pieces) {
        if (!p.staged && at < p.start) slab().move(layer, at, p.start, p.count);
        at += p.count;
    }
    for (auto p = L.pieces.rbegin(); p != L.pieces.rend(); ++p) {
        at -= p->count;
        if (p->staged)
            slab().write(layer, at, staged_rows.from(p->start, kv_dim()), p->count);
        else if (at > p->start)
            slab().move(layer, at, p->start, p->count);
    }
    L.slab_rows = L.rows;
    L.pending = false;
    L.pieces.clear();
    staged.rows = 0;  // keeps its allocation for the next tick
}

bool BatchSpliceLayout::prefix_untouched(const Layer& L, int rows) const {
    if (!L.pending || rows == 0) return true;
    const Piece& first = L.pieces.front();
    return !first.staged && first.start == 0 && first.count >= rows;
}

int BatchSpliceLayout::physical_row(int layer, int row) const {
    apply_pending(layer);
    return row;
}

LayerContext BatchSpliceLayout::layer_view(int layer, int rows) const {
    if (!prefix_untouched(layers_[size_t(layer)], rows)) apply_pending(layer);
    return slab().context(layer, rows);
}

}  // namespace kvw
