#include "core/backend/cpu/cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace kvw::cpu {

#if defined(__x86_64__)
namespace {

bool cpu_has_f16c() {
    // clang before 15 does not know "f16c" in __builtin_cpu_supports: ask CPUID leaf 1 (the
    // OS saves the AVX state F16C needs whenever the avx2 check passes).
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}

}  // namespace

bool cpu_has_avx2() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
}

bool cpu_has_avx512() {
    __builtin_cpu_init();
    return cpu_has_avx2() && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}

bool cpu_has_avx512_vnni() {
    __builtin_cpu_init();
    return cpu_has_avx512() && __builtin_cpu_supports("avx512vnni");
}

bool cpu_has_avx512_bf16() {
    __builtin_cpu_init();
    return cpu_has_avx512_vnni() && __builtin_cpu_supports("avx512bf16");
}

bool cpu_has_avx512_fp16() {
    // CPUID leaf 7, sub-leaf 0, EDX bit 23, asked directly as cpu_has_avx_vnni does (not every
    // compiler's __builtin_cpu_supports knows the name); its EVEX instructions need only the
    // state the avx512 check asks.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return cpu_has_avx512() && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) &&
           (edx & (1u << 23)) != 0;
}

bool cpu_prefers_vdpbf16ps() {
    __builtin_cpu_init();
    return cpu_has_avx512_bf16() && __builtin_cpu_is("amd") && __builtin_cpu_is("amdfam19h");
}

bool cpu_has_avx_vnni() {
    // CPUID leaf 7, sub-leaf 1, EAX bit 4 (GCC 12's __builtin_cpu_supports knows no name for
    // it); its VEX-encoded instructions need only the AVX state the avx2 check already asks.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return cpu_has_avx2() && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) &&
           (eax & (1u << 4)) != 0;
}

bool cpu_has_amx() {
    static const bool granted = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        constexpr unsigned kBf16 = 1u << 22, kTile = 1u << 24, kInt8 = 1u << 25;  // CPUID 7.0 EDX
        constexpr unsigned kAll = kBf16 | kTile | kInt8;
        if (!cpu_has_avx512_vnni() || !cpu_has_avx512_fp16() ||
            !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || (edx & kAll) != kAll)
            return false;
        // XCR0 bits 17 and 18: the OS saves the tile configuration and data
        unsigned xcr0_low = 0, xcr0_high = 0;
        asm volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
        if ((xcr0_low & (3u << 17)) != (3u << 17)) return false;
#if defined(__linux__)
        // Linux hands the tile data to a process that asks (ARCH_REQ_XCOMP_PERM for
        // XFEATURE_XTILEDATA); the grant holds for every thread of the process.
        constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
        return syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
#else
        return false;
#endif
    }();
    return granted;
}
#else
bool cpu_has_amx() { return false; }
bool cpu_has_avx2() { return false; }
bool cpu_has_avx512() { return false; }
bool cpu_has_avx512_vnni() { return false; }
bool cpu_has_avx512_bf16() { return false; }
bool cpu_has_avx512_fp16() { return false; }
bool cpu_prefers_vdpbf16ps() { return false; }
bool cpu_has_avx_vnni() { return false; }
#endif

}  // namespace kvw::cpu
