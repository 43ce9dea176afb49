#pragma once
#include <cstddef>
#include <span>

namespace kvw {

// Calls f(at, n) for each longest run of positions [at, at + n) along which `a` and `b` both go
// up by one (a[at + i] = a[at] + i and b[at + i] = b[at] + i); a.size() == b.size(). A copy
// from rows `b` to rows `a` asks the device once per run instead of once per row.
template <class F>
void for_each_joint_run(std::span<const int> a, std::span<const int> b, F&& f) {
    for (size_t at = 0; at < a.size();) {
        size_t n = 1;
        while (at + n < a.size() && a[at + n] == a[at] + int(n) && b[at + n] == b[at] + int(n)) ++n;
        f(at, int(n));
        at += n;
    }
}

// Calls f(first, n, at) for each run of consecutive rows in `rows`: rows [first, first + n) are
// rows[at .. at + n). A device is asked once per run instead of once per row.
template <class F>
void for_each_run(std::span<const int> rows, F&& f) {
    for_each_joint_run(rows, rows, [&](size_t at, int n) { f(rows[at], n, at); });
}

}  // namespace kvw
