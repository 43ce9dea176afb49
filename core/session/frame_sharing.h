#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/mirror/layer_map.h"
#include "core/mirror/ledger.h"
#include "core/session/frame.h"

namespace kvw {

// What a session's last Frame held, so that the next Frame shares every ledger chunk and layer
// row vector that did not change instead of copying it (ARCHITECTURE §7.1): after a tick that
// changes a few rows, a Frame copies those chunks and layers, not the whole context.
class FrameSharing {
public:
    // The ledger's records: its own chunks, shared (the ledger copies a chunk before writing
    // to it while a Frame holds it). A Frame used to copy every chunk whose revision moved:
    // after each tick the last one, up to 1,024 records with their per-layer vectors.
    static LedgerRecords ledger(const Ledger& ledger);
    // A layer's rows, chunk by chunk: the last Frame's chunk while it kept its revision
    // (LayerMaps::chunk_revision: a write renews the chunks from its first row on), else a
    // copy. Tracked, not compared: comparing 22 layers x 100,000 rows costs more than the Frame.
    // So a tick that appends copies each layer's last chunk, a delete the chunks from its row.
    SharedRows<int64_t> pos2ledger(const LayerMaps& maps, int layer);
    SharedRows<int32_t> rope_pos(const LayerMaps& maps, int layer);

private:
    template <class T>
    struct Kept {
        SharedRows<T> rows;
        std::vector<uint64_t> revisions;  // [chunk] of the map they were copied from
    };
    std::vector<Kept<int64_t>> pos2ledger_;  // [layer]
    std::vector<Kept<int32_t>> rope_pos_;    // [layer]
};

}  // namespace kvw
