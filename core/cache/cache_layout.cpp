#include "core/cache/cache_layout.h"

namespace kvw {

const char* cache_layout_name(CacheLayout layout) {
    switch (layout) {
        case CacheLayout::Contiguous: return "contiguous";
        case CacheLayout::BatchSplice: return "batch_splice";
        case CacheLayout::Indirection: return "indirection";
        case CacheLayout::Ring: return "ring";
    }
    return "?";
}

std::optional<CacheLayout> parse_cache_layout(std::string_view name) {
    for (CacheLayout l : kCacheLayouts)
        if (name == cache_layout_name(l)) return l;
    return std::nullopt;
}

}  // namespace kvw
