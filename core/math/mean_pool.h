#pragma once
#include "core/math/hd.h"

namespace kvw {

// (1/n) * sum_j row_of(j)[i] over n rows, summed in row order in float: one column of the pool.
// row_of(j) gives row j's floats, however the caller finds them (a list of pointers here, an
// index into a device buffer in kernels/bodies/cache_gist.h, which runs one column a thread).
template <class RowOf>
KVW_HD float mean_pool_column(RowOf row_of, int n, int i) {
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) sum += row_of(j)[i];
    return n > 0 ? sum / float(n) : 0.0f;
}

// out[i] = (1/n) * sum_j rows[j][i] over n rows of `dim` floats (the built-in gist of
// ARCHITECTURE §14: one embedding row standing for n rows).
KVW_HD void mean_pool_rows(const float* const* rows, int n, int dim, float* out) {
    for (int i = 0; i < dim; ++i)
        out[i] = mean_pool_column([rows](int j) { return rows[j]; }, n, i);
}

// The leaf whose position a gist over `span` leaves takes (ARCHITECTURE §14): the central one,
// and for an even span the lower of the two middle leaves, (span - 1) / 2.
KVW_HD int central_leaf(int span) { return span > 0 ? (span - 1) / 2 : 0; }

}  // namespace kvw
