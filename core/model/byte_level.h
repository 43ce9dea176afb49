#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvw {

// GPT-2's byte-to-unicode map, which byte-level BPE vocabularies (GPT-2, Llama 3, Qwen,
// SmolLM) spell their pieces in: the printable bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand
// for themselves as code points; the other 68 bytes (controls, space, 0x7F..0xA0, 0xAD) take
// the code points 256, 257, ... in byte order, so a space is 'Ġ' (U+0120) and a newline 'Ċ'
// (U+010A). Every byte becomes one printable character, and any byte string is a string of
// pieces.

// The character that stands for `byte`, UTF-8 encoded.
std::string_view byte_level_char(uint8_t byte);

// The bytes a piece spelled in the map stands for, or nothing when a character of it is not
// in the map.
std::optional<std::string> byte_level_bytes(std::string_view piece);

}  // namespace kvw
