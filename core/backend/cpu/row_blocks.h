#pragma once
// How the CPU backends split a matrix product over their pool: rows in blocks of eight. Every
// row's result is computed the same way whatever range or thread it lands in (the kernels'
// contracts: matmul_kernels.h, fast_kernels.h), so the split may follow timing.
#include <algorithm>
#include <cstdint>

#include "core/backend/cpu/thread_pool.h"

namespace kvw::cpu {

inline constexpr int64_t kRowBlock = 8;

// Row blocks a thread takes at a time in a one-token product of the reference kernels: 128
// rows, a few microseconds of reading the weights, so the threads draw a matrix's rows in many
// turns. The fast set claims by weight type (fast_cpu_backend.cpp); its sizes slowed these
// kernels, which do more work per byte (Q4_0 at 26 blocks: 5 %).
inline constexpr int64_t kDecodeClaimBlocks = 16;

// fn(row_begin, row_end) for row ranges covering [0, rows) for a product of `tokens` tokens.
// One token (a decode step): ranges of `decode_claim_blocks` blocks claimed by whichever thread
// is free. With static halves each thread waited on the other after most products, the two
// being a few percent apart at random (one thread's spinning in the pool was 13-18 % of its
// matmul time; claimed, 7.5-9 %: `kvw bench decode` Q4_K, 128 rows, 200 tokens, perf, two
// alternated pairs). More tokens: one static range per thread (thread_pool.h), since a batch
// kernel lays its tokens out once per call.
template <class Fn>
void for_row_blocks(ThreadPool& pool, int64_t rows, int tokens, int64_t decode_claim_blocks,
                    const Fn& fn) {
    const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
    const auto block_range = [&](int64_t begin, int64_t end) {
        fn(begin * kRowBlock, std::min(rows, end * kRowBlock));
    };
    if (tokens == 1)
        pool.parallel_claims(blocks, decode_claim_blocks, block_range);
    else
        pool.parallel_for(blocks, block_range);
}

}  // namespace kvw::cpu
