#pragma once
// What the CPU (and OS) can run, for choosing kernels at run time.

namespace kvw::cpu {

bool cpu_has_avx2();         // AVX2 + FMA + F16C
bool cpu_has_avx512();       // cpu_has_avx2() + AVX-512 F, BW, VL
bool cpu_has_avx512_vnni();  // cpu_has_avx512() + AVX-512 VNNI
bool cpu_has_avx512_bf16();  // cpu_has_avx512_vnni() + AVX-512 BF16
bool cpu_has_avx512_fp16();  // cpu_has_avx512() + AVX512-FP16 (Sapphire Rapids and later)
// cpu_has_avx512_bf16() on AMD's Zen 4 (family 19h), which runs a 512-bit FMA as two halves, so
// one vdpbf16ps (32 products) beats two FMAs (fast_kernels.h)
bool cpu_prefers_vdpbf16ps();
bool cpu_has_avx_vnni();  // cpu_has_avx2() + AVX-VNNI (the VEX form: Alder Lake, Zen 5)
// cpu_has_avx512_vnni() + cpu_has_avx512_fp16() (every AMX CPU has it; the amx path's attention
// sums its scores in halves) + AMX-TILE, AMX-INT8 and AMX-BF16 (Sapphire Rapids and later), with
// the tile state enabled by the OS and granted to this process (Linux asks for it once, arch_prctl)
bool cpu_has_amx();

}  // namespace kvw::cpu
