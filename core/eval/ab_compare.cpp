#include "core/eval/ab_compare.h"

#include <algorithm>
#include <iterator>

namespace kvw {

const char* ab_kept_name(AbKept kept) {
    switch (kept) {
        case AbKept::Neither: return "neither";
        case AbKept::AOnly: return "A only";
        case AbKept::BOnly: return "B only";
        case AbKept::Both: return "both";
    }
    return "?";
}

double AbCounts::jaccard() const {
    const int either = a + b - both;
    return either ? double(both) / double(either) : 1.0;
}

AbCounts ab_counts(std::span<const int64_t> a_rows, std::span<const int64_t> b_rows) {
    std::vector<int64_t> x(a_rows.begin(), a_rows.end()), y(b_rows.begin(), b_rows.end());
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    std::vector<int64_t> common;
    std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(common));
    return {int(x.size()), int(y.size()), int(common.size())};
}

std::vector<AbKept> ab_kept(std::span<const int64_t> a_rows, std::span<const int64_t> b_rows,
                            int64_t records) {
    std::vector<uint8_t> in_a(size_t(std::max<int64_t>(records, 0)), 0), in_b(in_a.size(), 0);
    for (int64_t id : a_rows)
        if (id >= 0 && id < records) in_a[size_t(id)] = 1;
    for (int64_t id : b_rows)
        if (id >= 0 && id < records) in_b[size_t(id)] = 1;
    std::vector<AbKept> out(in_a.size());
    for (size_t id = 0; id < out.size(); ++id)
        out[id] = in_a[id] ? (in_b[id] ? AbKept::Both : AbKept::AOnly)
                           : (in_b[id] ? AbKept::BOnly : AbKept::Neither);
    return out;
}

}  // namespace kvw
