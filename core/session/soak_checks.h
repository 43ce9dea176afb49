#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/mirror/ledger.h"
#include "core/session/session.h"
#include "core/state/state_manager.h"

namespace kvw {

// The soaks' checks after every command (ARCHITECTURE §7, the soak).

// What is wrong with the state, or empty: the incremental state digest or invariants differ
// from their from-scratch references (ARCHITECTURE §6.1), or "invariant NAME fails at layer L
// row R: DETAIL" for the first invariant that fails.
std::string first_state_fault(const StateManager& state);

// The session's trace replayed from its header, every recorded outcome compared: the first
// difference ("its own trace replays differently at line N (EVENT): FIELD A, recorded B"), or
// empty when none.
std::string own_trace_replay_difference(const Session& session);

// The ledger keeps every record: what each had when first seen — its id, kind, token and birth
// tick — never changes, and no record goes away. A new prompt, undo and restore make the ledger
// anew: reset(), then remember().
class LedgerWatch {
public:
    void reset() { seen_.clear(); }
    // Remembers the records not seen yet.
    void remember(const Ledger& ledger);
    // The first record lost or changed since remember(); empty when none.
    std::string check(const Ledger& ledger) const;

private:
    struct Seen {
        EntryKind kind;
        int32_t token_id;
        int64_t born_tick;
    };
    std::vector<Seen> seen_;
};

}  // namespace kvw
