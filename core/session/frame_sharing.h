#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/mirror/ledger.h"
#include "core/session/frame.h"

namespace kvw {

// What a session's last Frame held, so that the next Frame shares every ledger chunk and layer
// row vector that did not change instead of copying it (ARCHITECTURE §7.1): after a tick that
// changes a few rows, a Frame copies those chunks and layers, not the whole context.
class FrameSharing {
public:
    // The ledger's records: chunks whose Ledger::chunk_revision is unchanged are shared.
    LedgerRecords ledger(const Ledger& ledger);
    // A layer's rows: the last Frame's while the layer's map kept its revision
    // (StateManager::layer_map_revision: every write to a map takes a new one), else a copy.
    // Tracked, not compared: comparing 22 layers x 100,000 rows costs more than the Frame.
    SharedRows<int64_t> pos2ledger(int layer, const std::vector<int64_t>& rows, uint64_t revision);
    SharedRows<int32_t> rope_pos(int layer, const std::vector<int32_t>& rows, uint64_t revision);

private:
    std::vector<uint64_t> chunk_revisions_;  // [chunk] of ledger_
    LedgerRecords ledger_;
    template <class T>
    struct Kept {
        SharedRows<T> rows;
        uint64_t revision = 0;  // of the map they were copied from; 0: none yet
    };
    std::vector<Kept<int64_t>> pos2ledger_;  // [layer]
    std::vector<Kept<int32_t>> rope_pos_;    // [layer]
};

}  // namespace kvw
