#pragma once
#include <stdexcept>

namespace kvw {

// Writing `requested` rows into a layer whose next write position is `position` would pass the
// capacity allocated for it (FT-022). Thrown before anything is written.
class CapacityExceeded : public std::runtime_error {
public:
    CapacityExceeded(int layer, int position, int requested, int capacity);

    int layer() const { return layer_; }
    int position() const { return position_; }
    int requested() const { return requested_; }
    int capacity() const { return capacity_; }

private:
    int layer_;
    int position_;
    int requested_;
    int capacity_;
};

}  // namespace kvw
