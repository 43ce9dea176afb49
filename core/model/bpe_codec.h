#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/vocabulary.h"

namespace kvw {

// The byte-level BPE side of Tokenizer (GPT-2, Llama 3, Qwen, SmolLM). Encoding: added tokens
// (Control and UserDefined pieces) are cut out of the text first, whole, leftmost and longest
// first; the rest is split by the vocabulary's pre-tokenizer; each word's bytes become the
// pieces of GPT-2's byte map (core/model/byte_level.h) and adjacent pieces are merged, lowest
// merge rank first and leftmost among equal ranks, until no ranked pair is left. Like
// SpmCodec, it keeps only lookup tables and is given the Vocabulary on every call.
class BpeCodec {
public:
    // Throws std::invalid_argument when the vocabulary cannot be encoded with: no
    // pre-tokenizer, a merge id outside it, a byte whose character is not a piece. The
    // loaders check the same first, with errors that name the file.
    explicit BpeCodec(const Vocabulary& vocab);

    // Ids of `text` (any bytes), without BOS.
    std::vector<int32_t> encode(const Vocabulary& vocab, std::string_view text) const;
    // The exact bytes the valid ids stand for: added tokens as written, other pieces through
    // the byte map (a piece with a character outside the map as its own UTF-8, as tokenizers'
    // ByteLevel decoder does). Never replaces a malformed byte.
    std::string decode(const Vocabulary& vocab, std::span<const int32_t> ids) const;
    // A piece readably: its bytes where they are UTF-8 (so 'Ġ' is a space, 'Ċ' a newline),
    // each other byte as "<0xAB>"; added tokens as written.
    std::string piece_text(const Vocabulary& vocab, int32_t id) const;

private:
    struct Merge {
        int32_t rank = 0;
        int32_t result = 0;  // id of the joined piece
    };

    void encode_word(const Vocabulary& vocab, std::string_view word,
                     std::vector<int32_t>& out) const;
    // The added token that starts `text`, longest first; -1 when none does.
    int32_t added_token_at(const Vocabulary& vocab, std::string_view text) const;

    std::unordered_map<uint64_t, Merge> merges_;            // (left id << 32 | right id)
    std::unordered_map<std::string, int32_t> piece_to_id_;  // for ignore_merges
    std::array<int32_t, 256> byte_to_id_{};
    std::array<std::vector<int32_t>, 256> added_by_first_byte_;  // longest first
};

}  // namespace kvw
