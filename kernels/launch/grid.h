#pragma once
// How a kernel body is launched (docs/ARCHITECTURE.md §18). Every kernel of the CUDA backend is a
// plain struct, its body, holding the kernel's arguments and two members:
//   Launch shape() const                         the grid and block it runs over;
//   KVW_HD void operator()(const At& at) const   what one thread does at one (block, thread).
// host_launch.h runs a body over its grid on the CPU, one thread after the other; the CUDA
// launcher (device_launch.cuh) runs the very same body on the device. So the index maths and the
// arithmetic of every kernel are tested on machines without a GPU, and only the launch itself is
// CUDA-only.
//
// Bodies do not share memory between threads and have no barriers: a thread that reduces
// (a norm, a softmax, a dot product) reads its inputs in a fixed order by itself, so a device
// gives the same bits run after run, and the same bits as the host launcher wherever the
// arithmetic is exact IEEE (the kernels are compiled without FMA contraction; the
// transcendental functions expf / cos / sin are the only parts whose last bits differ).
#include <cstddef>
#include <cstdint>

#include "core/math/hd.h"

namespace kvw::kern {

struct Dim {
    unsigned x = 1, y = 1, z = 1;
};

struct Launch {
    Dim grid;
    Dim block;
};

// Where one thread stands: its block in the grid, itself in the block, and both sizes.
struct At {
    Dim block;
    Dim thread;
    Dim grid_dim;
    Dim block_dim;

    // The thread's index along x over the whole grid.
    KVW_HD size_t x() const { return size_t(block.x) * block_dim.x + thread.x; }
    KVW_HD size_t y() const { return size_t(block.y) * block_dim.y + thread.y; }
};

// A one-dimensional grid of blocks of `threads` covering `count` threads (at least one block,
// so a body is never launched over an empty grid; bodies check their bound).
inline Launch cover(size_t count, unsigned threads = 128) {
    const size_t blocks = count == 0 ? 1 : (count + threads - 1) / threads;
    return Launch{Dim{unsigned(blocks), 1, 1}, Dim{threads, 1, 1}};
}

// A grid of `count` threads along x (blocks of `threads`) times `rows` along y: a body that
// works on (row, element) pairs. rows must stay below 65,536 (CUDA's limit on grid.y).
inline Launch cover_rows(size_t count, unsigned rows, unsigned threads = 128) {
    Launch l = cover(count, threads);
    l.grid.y = rows == 0 ? 1 : rows;
    return l;
}

}  // namespace kvw::kern
