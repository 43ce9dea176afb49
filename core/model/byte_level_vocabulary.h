#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/pre_tokenizer.h"
#include "core/model/vocabulary.h"

namespace kvw {

// What both loaders (GGUF tokenizer.ggml.*, tokenizer.json) do the same way to make a
// byte-level BPE Vocabulary, so that one file's fault reads like the other's.

// Where the parts come from, for errors: the file and the keys of its merges and its
// pre-tokenizer ("tokenizer.ggml.merges", "model.merges"; "tokenizer.ggml.pre",
// "pre_tokenizer").
struct ByteLevelSource {
    std::string file;
    std::string merges_key;
    std::string pre_key;
};

// A merge's two pieces, by name.
using MergePieces = std::pair<std::string, std::string>;

// "left right" (GGUF, and tokenizer.json before tokenizers 0.20): byte-level pieces never hold
// a plain space (it is 'Ġ'), so exactly one space separates them; nothing otherwise.
std::optional<MergePieces> split_merge_text(std::string_view text);

// Completes `vocab`, whose pieces, types and special ids are read, as a ByteLevelBpe: scores
// (unused) zero, no "▁" prefix; every byte's character must be a piece; `merges` (rank order)
// resolved to ids, each side and the joined piece in the vocabulary, at most
// ModelShapeLimits::kMaxVocab; the patterns compiled (at most kMaxPreTokenizerPatterns, each at
// most kMaxPatternBytes). Throws ModelError(BadTokenizer) naming `where.file` and the key at fault.
void make_byte_level(Vocabulary& vocab, std::span<const MergePieces> merges,
                     std::vector<PreTokenizer::Pattern> patterns, const ByteLevelSource& where);

inline constexpr size_t kMaxPreTokenizerPatterns = 64;
inline constexpr size_t kMaxPatternBytes = 64 * 1024;

}  // namespace kvw
