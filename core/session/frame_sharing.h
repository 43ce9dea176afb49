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
    // The last chunk, to which a tick appends a row, goes on in place past the rows the Frames
    // before read, when its rows are unchanged (its blocks' revisions, and the rows of the block
    // the append moved compared): a tick copies no rows, where each layer's last 4,096 were
    // copied; a delete copies the chunks from its row.
    SharedRows<int64_t> pos2ledger(const LayerMaps& maps, int layer);
    SharedRows<int32_t> rope_pos(const LayerMaps& maps, int layer);

    template <class T>
    struct Kept {
        SharedRows<T> rows;
        std::vector<uint64_t> revisions;    // [chunk] of the map they were copied from
        std::vector<uint64_t> last_blocks;  // [block of the last chunk] their revisions then
    };

private:
    std::vector<Kept<int64_t>> pos2ledger_;  // [layer]
    std::vector<Kept<int32_t>> rope_pos_;    // [layer]
};

}  // namespace kvw
