#pragma once
#include "core/model/tokenizer.h"

namespace kvw {

// The synthetic models' SentencePiece vocabulary, built without any training: <unk>, <s>,
// </s>, the 256 byte pieces, "▁" and printable ASCII, then English words from an embedded list
// with every prefix (so the merge can reach each word), all scored by length so longer pieces
// win; padded to `size` with two-word pieces. Deterministic.
// Throws std::invalid_argument when `size` is smaller than synthetic_vocabulary_min_size()
// or larger than the padding can fill.
Vocabulary synthetic_vocabulary(int size);
int synthetic_vocabulary_min_size();

}  // namespace kvw
