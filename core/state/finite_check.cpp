#include "core/state/finite_check.h"

#include <cmath>

#include "core/engine/forward_output.h"
#include "core/state/state_error.h"

namespace kvw {

void require_finite(std::span<const float> values, const char* primitive, int layer,
                    const std::string& source) {
    for (size_t i = 0; i < values.size(); ++i) {
        if (std::isfinite(values[i])) continue;
        throw StateError(StateErrorKind::NonFinite, primitive,
                         (layer >= 0 ? "layer " + std::to_string(layer) + ", " : std::string()) +
                             source + ": element " + std::to_string(i) + " is " +
                             (std::isnan(values[i]) ? "nan"
                              : values[i] > 0       ? "inf"
                                                    : "-inf"));
    }
}

void require_finite(const ForwardOutput& out, const char* primitive, const std::string& source) {
    // Counted where the rows are; only a forward that made a non-finite value brings its
    // layers down, to name the first one.
    if (out.k.nonfinite() + out.v.nonfinite() > 0)
        for (int l = 0; l < out.k.layers(); ++l) {
            require_finite(out.k.host(l), primitive, l, "K of " + source);
            require_finite(out.v.host(l), primitive, l, "V of " + source);
        }
    require_finite(out.logits, primitive, -1, "logits of " + source);
}

}  // namespace kvw
