#pragma once
#include <vector>

#include "core/engine/forward_types.h"

namespace kvw {

// Per-layer K and V, float32, token-major rows of kv_dim floats, laid out contiguously inside a
// capacity allocated once: edits move rows within the buffer and never allocate (ARCHITECTURE
// §4, contiguous layout). FT-022: each layer's position (its next write row) starts at 0 and
// advances by the rows written; prefill and decode both go through append(); a write past the
// capacity throws CapacityExceeded and changes nothing.
//
// Row and layer arguments out of range throw std::out_of_range; callers (StateManager)
// validate first, so these are programming errors.
class KvStore {
public:
    KvStore(int n_layers, int kv_dim, int capacity);

    int n_layers() const { return n_layers_; }
    int kv_dim() const { return kv_dim_; }
    int capacity() const { return capacity_; }
    int rows(int layer) const;
    int position(int layer) const { return rows(layer); }
    int remaining(int layer) const { return capacity_ - rows(layer); }
    bool is_full(int layer) const { return remaining(layer) == 0; }

    // Throws CapacityExceeded when `n` more rows do not fit in the layer.
    void check_room(int layer, int n) const;

    // k, v: [n][kv_dim]. Writes at the layer's position and advances it by n.
    void append(int layer, const float* k, const float* v, int n);
    // Moves rows [row, rows) up by n and writes the new rows at row.
    void insert(int layer, int row, const float* k, const float* v, int n);
    // Moves rows [row + 1, rows) down by one.
    void remove(int layer, int row);
    // Replaces rows [row, row + n) in place; row + n <= rows.
    void overwrite(int layer, int row, const float* k, const float* v, int n);
    // Drops rows [rows, old rows) of the layer.
    void truncate(int layer, int rows);
    // Every layer back to position 0; the buffers stay allocated.
    void reset();

    float* k_row(int layer, int row);
    const float* k_row(int layer, int row) const;
    const float* v_row(int layer, int row) const;

    // The first `rows` rows of a layer (all when rows < 0) as the engine reads them.
    LayerContext view(int layer, int rows = -1) const;

private:
    void check_layer(int layer) const;
    void check_row(int layer, int row, int n, int limit) const;

    int n_layers_;
    int kv_dim_;
    int capacity_;
    std::vector<int> rows_;
    std::vector<std::vector<float>> k_;  // [layer][capacity * kv_dim]
    std::vector<std::vector<float>> v_;
};

}  // namespace kvw
