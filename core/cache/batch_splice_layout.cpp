#include "core/cache/batch_splice_layout.h"

namespace kvw {

BatchSpliceLayout::BatchSpliceLayout(int n_layers, int kv_dim, int capacity, KvStorage storage,
                                     KvRowDevice& device)
    : KvLayout(n_layers, kv_dim, capacity, storage, device), layers_(size_t(n_layers)) {}

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
    const size_t d = size_t(kv_dim());
    const int first = int(L.staged_k.size() / d);
    // Staged on the host until the splice writes them: a forward's rows come down for it.
    const size_t floats = size_t(n) * d;
    L.staged_k.resize(L.staged_k.size() + floats);
    L.staged_v.resize(L.staged_v.size() + floats);
    const auto stage = [&](float* to, const float* from) {
        if (rows.at == RowsAt::Device)
            slab().device().download(to, from, floats * sizeof(float));
        else
            std::copy(from, from + floats, to);
    };
    stage(L.staged_k.data() + size_t(first) * d, rows.k);
    stage(L.staged_v.data() + size_t(first) * d, rows.v);
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
        L.staged_k.clear();
        L.staged_v.clear();
    }
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
    int at = 0;
    for (const Piece& p : L.pieces) {
        if (!p.staged && at < p.start) slab().move(layer, at, p.start, p.count);
        at += p.count;
    }
    for (auto p = L.pieces.rbegin(); p != L.pieces.rend(); ++p) {
        at -= p->count;
        if (p->staged)
            slab().write(layer, at,
                         NewRows{L.staged_k.data(), L.staged_v.data()}.from(p->start, kv_dim()),
                         p->count);
        else if (at > p->start)
            slab().move(layer, at, p->start, p->count);
    }
    L.slab_rows = L.rows;
    L.pending = false;
    L.pieces.clear();
    L.staged_k.clear();  // keeps its allocation for the next tick
    L.staged_v.clear();
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
