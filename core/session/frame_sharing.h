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
    // A layer's rows, chunk by chunk: the last Frame's chunks before the first row renewed
    // since it was made (LayerMaps::rows_renewed_since), copies from there on. The last
    // chunk, to which a tick appends a row, goes on in place past the rows the Frames before
    // read when its rows are unchanged (those from the first renewed row on compared, none
    // after an append): a tick copies
    // no rows and takes no chunk pointer, where each layer's last 4,096 rows were copied and
    // then every chunk's revision was read. A delete copies the chunks from its row. When the
    // renewals since do not reach back to the last Frame (more than ChunkRevisions keeps, or
    // other maps) or begin in the first block, each chunk is compared with the last Frame's
    // and shared when equal.
    SharedRows<int64_t> pos2ledger(const LayerMaps& maps, int layer);
    SharedRows<int32_t> rope_pos(const LayerMaps& maps, int layer);

    template <class T>
    struct Kept {
        SharedRows<T> rows;
        uint64_t revision = 0;  // LayerMaps::revision of the maps they were taken from
    };

private:
    std::vector<Kept<int64_t>> pos2ledger_;  // [layer]
    std::vector<Kept<int32_t>> rope_pos_;    // [layer]
};

}  // namespace kvw
