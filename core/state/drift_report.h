#pragma once
#include <vector>

namespace kvw {

// Numeric alignment: how far the cached K/V of each row are from what a fresh forward pass over
// the mirror gives, as max |cached - reference| / ||reference row||. A row the cache holds but
// the reference does not (or the reverse) has infinite drift.
struct LayerDrift {
    std::vector<float> k;  // [row]
    std::vector<float> v;  // [row]
    float tolerance = 0.0f;
    int first_stale_row = -1;  // first row whose K or V drift exceeds the tolerance; -1: none

    bool stale(int row) const;
};

struct DriftReport {
    float tolerance = 0.0f;
    std::vector<LayerDrift> layers;
    int first_diverging_layer = -1;  // first layer with a stale row; -1: aligned
};

}  // namespace kvw
