#include "core/model/layer_windows.h"

namespace kvw {

std::string layer_windows_text(std::span<const int32_t> layer_window) {
    std::string text;
    const int n = int(layer_window.size());
    for (int l = 0; l < n;) {
        int end = l;
        while (end + 1 < n && layer_window[size_t(end + 1)] == layer_window[size_t(l)]) ++end;
        if (layer_window[size_t(l)] > 0)
            text += std::string(text.empty() ? "" : "; ") +
                    std::to_string(layer_window[size_t(l)]) + " positions on layer" +
                    (end > l ? "s " + std::to_string(l) + "-" + std::to_string(end)
                             : " " + std::to_string(l));
        l = end + 1;
    }
    return text;
}

}  // namespace kvw
