#pragma once
#include <cstddef>
#include <string_view>

namespace kvw {

// Length of the well-formed UTF-8 character at the start of `s`, or 0 when it is malformed
// (bad lead byte, missing continuation, overlong form, surrogate, beyond U+10FFFF) or `s` is
// empty. Both tokenizers use it: SentencePiece to split text into characters, byte-level BPE
// to show pieces that are not whole characters as bytes.
size_t valid_utf8_length(std::string_view s);

}  // namespace kvw
