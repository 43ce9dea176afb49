#pragma once
// How the CPU backends split a matrix product over their pool: rows in blocks of eight, block
// ranges statically per thread (thread_pool.h), so which thread computes a row never depends on
// timing, and every row's result is computed by one kernel call whatever the thread count.
#include <algorithm>
#include <cstdint>

#include "core/backend/cpu/thread_pool.h"

namespace kvw::cpu {

inline constexpr int64_t kRowBlock = 8;

// fn(row_begin, row_end) for consecutive row ranges covering [0, rows).
template <class Fn>
void for_row_blocks(ThreadPool& pool, int64_t rows, const Fn& fn) {
    const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
    pool.parallel_for(blocks, [&](int64_t begin, int64_t end) {
        fn(begin * kRowBlock, std::min(rows, end * kRowBlock));
    });
}

}  // namespace kvw::cpu
