#include "core/model/utf8.h"

#include <cstdint>

namespace kvw {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

size_t valid_utf8_length(std::string_view s) {
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    const size_t n = s.size();
    if (n == 0) return 0;
    if (p[0] < 0x80) return 1;
    if ((p[0] & 0xE0) == 0xC0) {
        if (n < 2 || !is_continuation(p[1])) return 0;
        const uint32_t cp = (uint32_t(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
        return cp >= 0x80 ? 2 : 0;
    }
    if ((p[0] & 0xF0) == 0xE0) {
        if (n < 3 || !is_continuation(p[1]) || !is_continuation(p[2])) return 0;
        const uint32_t cp =
            (uint32_t(p[0] & 0x0F) << 12) | (uint32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        return cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) ? 3 : 0;
    }
    if ((p[0] & 0xF8) == 0xF0) {
        if (n < 4 || !is_continuation(p[1]) || !is_continuation(p[2]) || !is_continuation(p[3]))
            return 0;
        const uint32_t cp = (uint32_t(p[0] & 0x07) << 18) | (uint32_t(p[1] & 0x3F) << 12) |
                            (uint32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        return cp >= 0x10000 && cp <= 0x10FFFF ? 4 : 0;
    }
    return 0;
}

}  // namespace kvw
