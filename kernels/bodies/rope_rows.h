#pragma once
// RoPE of every head of every row (core/math/rope.h's rope_apply), one thread per (row, head),
// with the cos/sin table of each row's position that the host computed (rope_cos_sin, in double):
// the device only multiplies and adds, so it rotates exactly as the CPU does.
#include <cstddef>

#include "core/math/hd.h"
#include "core/math/rope.h"
#include "core/math/rope_layout.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct RopeRows {
    float* x = nullptr;  // [rows][heads · head_dim]
    int rows = 0, heads = 0, head_dim = 0;
    const float* cos_tab = nullptr;  // [rows][head_dim / 2]
    const float* sin_tab = nullptr;
    RopeLayout layout = RopeLayout::Interleaved;

    Launch shape() const { return cover(size_t(rows) * size_t(heads), 64); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= size_t(rows) * size_t(heads)) return;
        const size_t row = t / size_t(heads), half = size_t(head_dim / 2);
        rope_apply(x + t * size_t(head_dim), head_dim, cos_tab + row * half, sin_tab + row * half,
                   layout);
    }
};

inline RopeRows rope_rows_body(float* x, int rows, int heads, int head_dim, const float* cos_tab,
                               const float* sin_tab, RopeLayout layout) {
    return RopeRows{x, rows, heads, head_dim, cos_tab, sin_tab, layout};
}

}  // namespace kvw::kern
