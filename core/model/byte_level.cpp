#include "core/model/byte_level.h"

#include <array>

namespace kvw {
namespace {

// The map's code points lie below 256 + 68.
constexpr uint32_t kCodePoints = 256 + 68;

bool stands_for_itself(uint32_t byte) {
    return (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) ||
           (byte >= 0xAE && byte <= 0xFF);
}

struct ByteMap {
    std::array<std::string, 256> chars;      // byte -> UTF-8 of its character
    std::array<int16_t, kCodePoints> bytes;  // code point -> byte, or -1

    ByteMap() {
        bytes.fill(-1);
        uint32_t next = 256;
        for (uint32_t byte = 0; byte < 256; ++byte) {
            const uint32_t cp = stands_for_itself(byte) ? byte : next++;
            bytes[cp] = int16_t(byte);
            // Every code point here is below 0x800: one byte or two.
            chars[byte] = cp < 0x80 ? std::string(1, char(cp))
                                    : std::string{char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))};
        }
    }
};

const ByteMap& byte_map() {
    static const ByteMap map;
    return map;
}

}  // namespace

std::string_view byte_level_char(uint8_t byte) { return byte_map().chars[byte]; }

std::optional<std::string> byte_level_bytes(std::string_view piece) {
    const ByteMap& map = byte_map();
    std::string out;
    out.reserve(piece.size());
    for (size_t i = 0; i < piece.size();) {
        const auto lead = uint8_t(piece[i]);
        uint32_t cp = lead;
        size_t length = 1;
        if (lead >= 0x80) {  // the map's other characters are two-byte sequences
            if ((lead & 0xE0) != 0xC0 || i + 1 >= piece.size() ||
                (uint8_t(piece[i + 1]) & 0xC0) != 0x80)
                return std::nullopt;
            cp = (uint32_t(lead & 0x1F) << 6) | (uint8_t(piece[i + 1]) & 0x3F);
            if (cp < 0x80) return std::nullopt;  // an overlong form is not the character
            length = 2;
        }
        if (cp >= kCodePoints || map.bytes[cp] < 0) return std::nullopt;
        out.push_back(char(map.bytes[cp]));
        i += length;
    }
    return out;
}

}  // namespace kvw
