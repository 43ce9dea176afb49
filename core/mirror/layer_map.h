#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace kvw {

// One layer's half of the mirror: which ledger record each cache row holds (pos2ledger) and
// the RoPE phase applied to that row's K (rope_pos). Spliced by the same calls, with the same
// arguments, that splice the layer's tensors.
struct LayerMap {
    std::vector<int64_t> pos2ledger;
    std::vector<int32_t> rope_pos;

    int rows() const { return int(pos2ledger.size()); }
    // ids.size() == phases.size(); 0 <= row <= rows(). Throws std::out_of_range otherwise.
    void insert(int row, std::span<const int64_t> ids, std::span<const int32_t> phases);
    // 0 <= row < rows(). Throws std::out_of_range otherwise.
    void remove(int row);
    void clear();
};

}  // namespace kvw
