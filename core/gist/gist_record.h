#pragma once
#include <cstdint>
#include <vector>

namespace kvw {

// What a gist ledger record (EntryKind::Gist) stands for (ARCHITECTURE §14). Kept by the
// StateManager next to the ledger for as long as the session lives, like the ledger itself.
struct GistRecord {
    int level = 1;                      // 1: one block of K tokens; 2: K blocks (K² tokens)
    int32_t phase = 0;                  // its RoPE position: the central leaf's phase
    std::vector<float> embedding;       // n_embd floats, fed to the engine as an item
    std::vector<int64_t> children;      // the records its row replaced, in order (K of them)
    std::vector<int32_t> child_phases;  // their phases, restored by expand
    std::vector<int64_t> leaves;        // the token records it covers, in order (K^level)
    std::vector<int32_t> leaf_phases;
};

}  // namespace kvw
