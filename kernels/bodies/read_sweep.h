#pragma once
// A kernel body (kernels/launch/grid.h) that reads a buffer once: what the CUDA backend's
// bandwidth measurement times. Thread t reads words t, t + T, t + 2T, … (T threads in all: a
// warp reads consecutive words) and folds them into one word it writes, so the reads cannot be
// left out.
#include <cstddef>
#include <cstdint>

#include "kernels/launch/grid.h"

namespace kvw::kern {

struct ReadSweep {
    const uint64_t* words = nullptr;
    size_t count = 0;
    uint64_t* folded = nullptr;  // one word per thread
    unsigned blocks = 1, threads = 256;

    Launch shape() const { return Launch{Dim{blocks, 1, 1}, Dim{threads, 1, 1}}; }

    KVW_HD void operator()(const At& at) const {
        const size_t stride = size_t(blocks) * threads;
        uint64_t acc = 0;
        for (size_t i = at.x(); i < count; i += stride) acc ^= words[i];
        folded[at.x()] = acc;
    }
};

}  // namespace kvw::kern
