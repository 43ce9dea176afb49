#pragma once
#include <string>

#include <vector>

#include "core/json/json_fields.h"
#include "core/model/byte_level_vocabulary.h"
#include "core/model/vocabulary.h"

namespace kvw {

// The byte-level BPE parts of a tokenizer.json (read by hf_tokenizer_json.cpp).

// Whether the file's pre-tokenizer is GPT-2's byte level: ByteLevel itself, or a Sequence
// holding one. Such files are read as TokenizerKind::ByteLevelBpe, all others as SentencePiece.
bool is_byte_level_tokenizer(const JsonFields& tok);

// model.merges in rank order, as "a b" strings (tokenizers before 0.20) or ["a", "b"] pairs;
// both vocabulary kinds read them so. Throws ModelError(BadTokenizer) naming `file` and the
// merge's index for any other form.
std::vector<MergePieces> read_hf_merges(const JsonFields& model, const std::string& file);

// Completes `vocab` (pieces and types read) from the merges (model.merges, "a b" strings or
// ["a", "b"] pairs), model.ignore_merges and the pre-tokenizer. Pre-tokenizers read: ByteLevel
// (use_regex: GPT-2's pattern; add_prefix_space must be false), or a Sequence of Split
// (Regex or String pattern, behavior Isolated, not inverted) and Digits steps ending in
// ByteLevel. Normalizer: none, or NFC, which is not applied (a warning says so). Any other
// shape is refused naming it. Throws ModelError(BadTokenizer) naming `file`, or JsonError.
void read_hf_byte_level(const JsonFields& tok, Vocabulary& vocab, const std::string& file);

}  // namespace kvw
