#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvw {

// The physical K and V rows of every layer: float32, token-major rows of kv_dim floats, a fixed
// capacity allocated once. It knows nothing about which logical row a physical row holds (the
// layouts decide that); it only copies and moves rows, and counts the bytes of existing rows it
// moved so that layouts can be compared by traffic, not just by time.
class RowBuffer {
public:
    RowBuffer(int n_layers, int kv_dim, int capacity);

    int n_layers() const { return n_layers_; }
    int kv_dim() const { return kv_dim_; }
    int capacity() const { return capacity_; }
    size_t row_bytes() const { return size_t(kv_dim_) * sizeof(float); }

    float* k(int layer, int row) { return k_[size_t(layer)].data() + offset(row); }
    float* v(int layer, int row) { return v_[size_t(layer)].data() + offset(row); }
    const float* k(int layer, int row) const { return k_[size_t(layer)].data() + offset(row); }
    const float* v(int layer, int row) const { return v_[size_t(layer)].data() + offset(row); }

    // k, v: [n][kv_dim], copied to physical rows [row, row + n).
    void write(int layer, int row, const float* k, const float* v, int n);
    // K and V of physical rows [from, from + n) to [to, to + n); the ranges may overlap.
    void move(int layer, int to, int from, int n);

    // Bytes of existing K and V rows moved since construction, plus whatever a layout adds with
    // count_moved (its own bookkeeping traffic, e.g. an index shifted by an edit).
    uint64_t bytes_moved() const { return bytes_moved_; }
    void count_moved(uint64_t bytes) { bytes_moved_ += bytes; }

private:
    size_t offset(int row) const { return size_t(row) * size_t(kv_dim_); }

    int n_layers_;
    int kv_dim_;
    int capacity_;
    std::vector<std::vector<float>> k_;  // [layer][capacity * kv_dim]
    std::vector<std::vector<float>> v_;
    uint64_t bytes_moved_ = 0;
};

}  // namespace kvw
