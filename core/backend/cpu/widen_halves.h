#pragma once
// Internal to the CPU backend: a row of f16 or bf16 values widened to float32 on AVX2 + F16C,
// the same bits as core/math/half.h's fp16_to_float / bf16_to_float (both exact; NaNs made quiet
// with their payload, as F16C does), for HostBackend::decoded_context (host_attention.cpp);
// test_widen_halves compares them on every 16-bit pattern.
#include <cstdint>

namespace kvw::cpu {

#if defined(__x86_64__)
void widen_f16_avx2(const uint16_t* in, int64_t n, float* out);
void widen_bf16_avx2(const uint16_t* in, int64_t n, float* out);
#endif

}  // namespace kvw::cpu
