#pragma once
#include "core/model/gguf_file.h"
#include "core/model/tokenizer.h"

namespace kvw {

// The SentencePiece vocabulary stored in a GGUF file's tokenizer.ggml.* keys:
// model (must be "llama"), tokens, scores (default 0), token_type (default Normal),
// bos/eos/unknown_token_id, add_bos_token, add_space_prefix (defaults as in Vocabulary).
// Throws ModelError: MissingMetadata (model or tokens absent), BadMetadata (a key of the wrong
// type), BadTokenizer (another tokenizer model, arrays of different lengths, an empty
// vocabulary, a token type outside 1..6, a special id outside the vocabulary).
Vocabulary read_gguf_vocabulary(const GgufFile& file);

}  // namespace kvw
