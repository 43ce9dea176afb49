#pragma once
#include <math.h>

#include "core/math/hd.h"

namespace kvw {

// A cached row's drift from its reference (docs/ARCHITECTURE.md §6, numeric alignment):
// max |cached - reference| / ||reference row|| in double, absolute when the reference row is
// zero. A NaN difference does not raise the maximum (the comparison keeps the old one, as
// std::max(max, NaN) does). The drift map's numbers, compared where the cache's rows are
// (KvRowDevice::drift_rows): the host device and the CUDA drift body
// (kernels/bodies/cache_drift.h) both call this.
KVW_HD float relative_row_error(const float* cached, const float* ref, int n) {
    double max_diff = 0.0, norm = 0.0;
    for (int i = 0; i < n; ++i) {
        const double diff = fabs(double(cached[i]) - double(ref[i]));
        if (max_diff < diff) max_diff = diff;
        norm += double(ref[i]) * double(ref[i]);
    }
    norm = sqrt(norm);
    return float(norm > 0.0 ? max_diff / norm : max_diff);
}

}  // namespace kvw
