#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/vocabulary.h"

namespace kvw {

// The SentencePiece side of Tokenizer: the BPE-style merge by piece score that llama.cpp's SPM
// tokenizer and sentencepiece's BPE models perform, with byte fallback. It keeps only its
// lookup tables; the Vocabulary they were built from is passed to every call, so a copied
// Tokenizer never points into another's.
class SpmCodec {
public:
    SpmCodec() = default;
    explicit SpmCodec(const Vocabulary& vocab);

    // Ids of `text`, without BOS.
    std::vector<int32_t> encode(const Vocabulary& vocab, std::string_view text) const;
    // Text of a whole sequence of valid ids: "▁" becomes a space, byte pieces are reassembled
    // into UTF-8 (sentencepiece's U+FFFD for each malformed byte), controls vanish, the leading
    // space that encode() added is dropped.
    std::string decode(const Vocabulary& vocab, std::span<const int32_t> ids) const;
    // "▁" shown as a space, bytes as "<0xAB>", controls as they are.
    std::string piece_text(const Vocabulary& vocab, int32_t id) const;

private:
    std::unordered_map<std::string, int32_t> piece_to_id_;  // pieces the merge may produce
    std::vector<std::string> user_defined_;  // matched whole before merging, never merged
    int32_t byte_to_id_[256] = {};
};

}  // namespace kvw
