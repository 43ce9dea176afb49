#include "core/state/drift_report.h"

#include <algorithm>

namespace kvw {

bool LayerDrift::stale(int row) const {
    return std::max(k.at(size_t(row)), v.at(size_t(row))) > tolerance;
}

}  // namespace kvw
