#pragma once
#include <cstddef>
#include <span>

namespace kvw {

// Calls f(first, n, at) for each run of consecutive rows in `rows`: rows [first, first + n) are
// rows[at .. at + n). A device is asked once per run instead of once per row.
template <class F>
void for_each_run(std::span<const int> rows, F&& f) {
    for (size_t at = 0; at < rows.size();) {
        size_t n = 1;
        while (at + n < rows.size() && rows[at + n] == rows[at] + int(n)) ++n;
        f(rows[at], int(n), at);
        at += n;
    }
}

}  // namespace kvw
