#pragma once
// What the CPU (and OS) can run, for choosing kernels at run time.

namespace kvw::cpu {

bool cpu_has_avx2();         // AVX2 + FMA + F16C
bool cpu_has_avx512();       // cpu_has_avx2() + AVX-512 F, BW, VL
bool cpu_has_avx512_vnni();  // cpu_has_avx512() + AVX-512 VNNI
bool cpu_has_avx_vnni();     // cpu_has_avx2() + AVX-VNNI (the VEX form: Alder Lake, Zen 5)

}  // namespace kvw::cpu
