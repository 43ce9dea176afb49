#pragma once
#include <limits>

namespace kvw {

// The part [first, last) of a long list a view shows: a layer's rows in the layer maps, the
// ledger's records in the policy view (ARCHITECTURE §7.1). The default is all of it.
struct RowWindow {
    int first = 0;
    int last = std::numeric_limits<int>::max();
};

}  // namespace kvw
