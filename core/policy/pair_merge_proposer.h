#pragma once
#include <optional>

#include "core/policy/proposer.h"

namespace kvw {

// A real compaction: replaces the adjacent pair of rows with the lowest summed brightness whose
// joined text the tokenizer spells with a single token, by that token. At most one action per
// tick; none when no pair merges.
//
// Rows: layers whose row tokens equal layer 0's take part (all of them when every layer holds
// the same tokens, the usual case without per-layer eviction); the action is restricted to
// them, and a pair's brightness is summed over them. Layers holding other tokens are left
// alone, since the same positions name other tokens there.
//
// Merging: the pair's text is its pieces joined ("▁" included; a byte piece counts as its
// byte), and it merges when encoding that exact text, without BOS and without a space prefix,
// gives one token whose piece is the joined text. Control and unknown tokens never merge, so
// the BOS row is never folded into its neighbour. Ties: the lower position wins.
class PairMergeProposer final : public Proposer {
public:
    ActionList propose(const ProposerInput& input) override;
    std::string_view name() const override { return "pair-merge"; }
    bool reads_rows() const override { return true; }
    // The unprefixed tokenizer is a cache rebuilt from the input's on the next propose(): the
    // copy does not carry a whole vocabulary along.
    std::unique_ptr<Proposer> clone() const override {
        return std::make_unique<PairMergeProposer>();
    }

private:
    // The input's tokenizer with add_space_prefix off, built once per tokenizer seen.
    const Tokenizer& unprefixed(const Tokenizer& tokenizer);

    const Tokenizer* source_ = nullptr;
    std::optional<Tokenizer> unprefixed_;
};

}  // namespace kvw
