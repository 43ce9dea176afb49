#pragma once
#include <cstdint>

#include "core/math/hd.h"

namespace kvw {

// Sliding-window attention (docs/ARCHITECTURE.md §2.1): a query at rope position `query` sees a
// key at `key` when the key lies fewer than `window` positions back — llama.cpp's and
// transformers' rule. window <= 0: no window, every key is seen. The engine masks by it and the
// views shade by it, so they cannot disagree.
KVW_HD bool in_sliding_window(int64_t query, int64_t key, int32_t window) {
    return window <= 0 || query - key < window;
}

}  // namespace kvw
