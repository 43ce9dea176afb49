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
    // Every layer's brightness (each row's record's brightness in that layer), after ledger()
    // and pos2ledger() for this Frame, `rows[layer]` being the layer's pos2ledger: a layer's is
    // the last Frame's when it holds the same rows (the same shared copy) and no brightness in
    // the ledger changed (Ledger::brightness_revision); else rebuilt. An edit of a few rows in
    // one layer leaves every other layer's shared; a tick, which decays every row's brightness,
    // rebuilds them all. Layers are rebuilt together, row by row across layers: a record's
    // brightness is one vector for all layers, so it is read once per row instead of once per
    // layer (at 22 layers x 100,000 rows, layer by layer streamed the ledger 22 times).
    std::vector<SharedRows<float>> brightness(std::span<const SharedRows<int64_t>> rows,
                                              std::span<const LedgerEntry> entries);

private:
    std::vector<uint64_t> chunk_revisions_;             // [chunk] of ledger_
    std::vector<uint64_t> brightness_revisions_;        // [chunk] Ledger::brightness_revision seen
    bool any_brightness_changed_ = true;                // since the Frame before, in any chunk
    std::vector<SharedRows<int64_t>> brightness_rows_;  // [layer]: the rows brightness_ is of
    std::vector<SharedRows<float>> brightness_;         // [layer]
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
