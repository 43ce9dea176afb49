#pragma once
// Internal to the CPU backend: the AMX tile configuration (palette 1) that the amx path's
// kernels load before their tile products (fast_vnni_batch.cpp, fast_amx_bf16.cpp). x86-64 only.
#if defined(__x86_64__)
#include <cstdint>

namespace kvw::cpu {

struct alignas(64) AmxTileConfig {
    uint8_t palette = 1, start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};  // bytes per row of tile t
    uint8_t rows[16] = {};
};

// ldtilecfg with the whole struct as its operand: GCC 12's _tile_loadconfig declares an 8-byte
// read, so the compiler dropped the stores of the rest of the configuration and the first tile
// instruction raised SIGILL.
inline void load_amx_tile_config(const AmxTileConfig& config) {
    asm volatile("ldtilecfg %0" : : "m"(config));
}

}  // namespace kvw::cpu

#endif  // __x86_64__
