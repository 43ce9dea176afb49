#include "core/session/error_message.h"

#include <cstdio>

namespace kvw {

std::string with_context(std::string_view context, std::string_view message) {
    const std::string prefix = std::string(context) + ": ";
    if (message.starts_with(prefix)) return std::string(message);
    return prefix + std::string(message);
}

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7f) {
            out += c;
            continue;
        }
        char escaped[5];
        std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
        out += escaped;
    }
    return out;
}

}  // namespace kvw
