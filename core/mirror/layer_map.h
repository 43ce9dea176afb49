#pragma once
#include <cstddef>
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

// Every layer's map, each with a revision (next_revision) that every write takes anew: the
// only way to a writable map is edit(), so no primitive can change a map and leave its
// revision behind. The revision is also kept per chunk of kChunkRows rows, so that a Frame
// shares the chunks of a layer's rows that a write left alone (ARCHITECTURE §7.1): an append
// renews the last chunk only, a delete the chunks from its row on (the later rows shift).
class LayerMaps {
public:
    explicit LayerMaps(size_t n_layers);

    size_t size() const { return maps_.size(); }
    // Throws std::out_of_range for a layer outside [0, size()).
    const LayerMap& at(size_t layer) const { return maps_.at(layer); }
    const LayerMap& operator[](size_t layer) const { return maps_[layer]; }
    static constexpr int kChunkRows = 4096;  // a power of two (a Frame's SharedRows chunk)
    uint64_t revision(size_t layer) const { return revisions_.at(layer).latest; }
    // The revision of the layer's rows [chunk * kChunkRows, (chunk + 1) * kChunkRows).
    uint64_t chunk_revision(size_t layer, size_t chunk) const;
    // The layer's map to change at `first_row` and after it (the rows before it stay as they
    // are), its revision and those of the chunks from first_row's on already new.
    LayerMap& edit(size_t layer, int first_row = 0);
    // Every map replaced (a mirror snapshot put back); every revision new.
    void assign(std::vector<LayerMap> maps);
    const std::vector<LayerMap>& all() const { return maps_; }

private:
    std::vector<LayerMap> maps_;
    struct Revisions {
        std::vector<uint64_t> chunks;  // [chunk]; a chunk past the end has `latest`
        uint64_t latest = 0;
    };
    std::vector<Revisions> revisions_;  // [layer]
};

}  // namespace kvw
