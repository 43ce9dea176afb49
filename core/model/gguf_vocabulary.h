#pragma once
#include "core/model/gguf_file.h"
#include "core/model/tokenizer.h"

namespace kvw {

// The vocabulary stored in a GGUF file's tokenizer.ggml.* keys. model "llama": SentencePiece
// (tokens, scores default 0, token_type default Normal, bos/eos/unknown_token_id,
// add_bos_token, add_space_prefix; defaults as in Vocabulary). model "gpt2": byte-level BPE
// (tokens, token_type, merges "left right" by rank, pre naming a pre-tokenizer of
// named_pre_tokenizers(), specials only where named, add_bos_token defaulting as the
// pre-tokenizer's row says). Either kind: tokenizer.chat_template, when present, as the
// chat template.
// Throws ModelError: MissingMetadata (model, tokens, merges or pre absent), BadMetadata (a key
// of the wrong type), BadTokenizer (another tokenizer model, an unknown pre-tokenizer name,
// arrays of different lengths, an empty vocabulary, a token type outside 1..6, a special id
// outside the vocabulary, a malformed merge or one naming a piece not in the vocabulary).
Vocabulary read_gguf_vocabulary(const GgufFile& file);

}  // namespace kvw
