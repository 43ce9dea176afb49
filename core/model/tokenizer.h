#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/model/bpe_codec.h"
#include "core/model/spm_codec.h"
#include "core/model/vocabulary.h"

namespace kvw {

// The model's tokenizer. One interface for every vocabulary kind (TokenizerKind): the
// algorithm is chosen here from Vocabulary::kind, so the Session, the CLI and the widgets never
// ask which one they hold.
class Tokenizer {
public:
    Tokenizer() = default;
    // Throws std::invalid_argument for a vocabulary its algorithm cannot run on (arrays of
    // different lengths; for byte-level BPE see BpeCodec).
    explicit Tokenizer(Vocabulary vocab);

    // Ids of `text`. `at_sequence_start`: the text begins a sequence, so BOS goes first when
    // the vocabulary's sequences start with one (Vocabulary::add_bos; Llama yes, Qwen no).
    std::vector<int32_t> encode(std::string_view text, bool at_sequence_start) const;
    // Ids of `text` in which the vocabulary's control pieces written out ("<s>", "[INST]",
    // "<|im_start|>") stand for their own ids, as llama.cpp tokenizes a rendered chat template
    // (parse_special). Byte-level BPE matches them in encode() already; SentencePiece text is
    // cut at each control piece (leftmost, longest) and every stretch between them encoded on
    // its own, each with the "▁" prefix where the vocabulary adds one. No BOS is added.
    std::vector<int32_t> encode_with_controls(std::string_view text) const;
    // Text of a whole sequence. SentencePiece: sentencepiece's DecodeIds (controls vanish,
    // malformed bytes as U+FFFD). Byte-level BPE: the exact bytes, added tokens included.
    // Throws std::out_of_range for an id outside the vocabulary.
    std::string decode(std::span<const int32_t> ids) const;
    // Display text of one token (spaces as spaces, stray bytes as "<0xAB>", controls as
    // written). Throws std::out_of_range for an id outside the vocabulary.
    std::string piece_text(int32_t id) const;

    const Vocabulary& vocabulary() const { return vocab_; }
    int size() const { return vocab_.size(); }
    int32_t bos_id() const { return vocab_.bos_id; }
    int32_t eos_id() const { return vocab_.eos_id; }

private:
    void check_id(int32_t id) const;

    Vocabulary vocab_;
    std::variant<SpmCodec, BpeCodec> codec_;
};

}  // namespace kvw
