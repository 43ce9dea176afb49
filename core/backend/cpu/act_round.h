#pragma once
// Internal to the CPU backend: core/math/act_quant.h's int8 roundings of x for the fast set
// (fast_cpu_backend.h) on AVX-512 F / BW / VL, the same bits as the scalar functions there
// (act_round_avx512.cpp; test_fast_kernels compares them).
#include <cstdint>

#include "core/math/act_quant.h"

namespace kvw::cpu {

#if defined(__x86_64__)
void round_act_row_32_avx512(const float* x, int64_t blocks, ActBlock32* out);
void round_act_row_256_avx512(const float* x, int64_t blocks, ActBlock256* out);
#endif

}  // namespace kvw::cpu
