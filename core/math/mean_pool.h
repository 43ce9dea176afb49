#pragma once
#include "core/math/hd.h"

namespace kvw {

// out[i] = (1/n) * sum_j rows[j][i] over n rows of `dim` floats, summed in row order in float
// (the built-in gist of ARCHITECTURE §14: one embedding row standing for n rows).
KVW_HD void mean_pool_rows(const float* const* rows, int n, int dim, float* out) {
    for (int i = 0; i < dim; ++i) {
        float sum = 0.0f;
        for (int j = 0; j < n; ++j) sum += rows[j][i];
        out[i] = n > 0 ? sum / float(n) : 0.0f;
    }
}

// The leaf whose position a gist over `span` leaves takes (ARCHITECTURE §14): the central one,
// and for an even span the lower of the two middle leaves, (span - 1) / 2.
KVW_HD int central_leaf(int span) { return span > 0 ? (span - 1) / 2 : 0; }

}  // namespace kvw
