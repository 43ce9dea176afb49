#pragma once
// K/V rows as a cache storing them gives them back (what the engine attends to for the items it
// computes, docs/ARCHITECTURE.md §13): each group (KV head) encoded to the storage type with
// kv_encode_row and decoded back with kv_decode_row, in place. One thread per (row, group) for
// int8 / FP8, per value for the other types: groups are encoded independently (int8 / FP8 keep a
// scale per group) and the other types' values each by itself, so a group or a value encoded as
// a row of its own gives the bits of the whole row.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/math/hd.h"
#include "core/math/kv_quant.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

// The largest group a thread round-trips: its code sits in the thread's own scratch.
inline constexpr int kMaxKvGroup = 512;

struct KvRoundTripRows {
    KvType type = KvType::F32;
    float* rows = nullptr;  // [n][kv_dim]
    int n = 0, kv_dim = 0, groups = 1;

    // Types without scales encode each value alone, so one thread takes one value (a thread
    // per group walked its values one after the other, a decode step's slowest kernels).
    Launch shape() const {
        return kv_type_scaled(type) ? cover(size_t(n) * size_t(groups), 64)
                                    : cover(size_t(n) * size_t(kv_dim));
    }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (!kv_type_scaled(type)) {
            if (t >= size_t(n) * size_t(kv_dim)) return;
            uint32_t code = 0;
            QuantStats ignored;
            kv_encode_row(type, rows + t, 1, 1, &code, nullptr, ignored);
            kv_decode_row(type, &code, nullptr, 1, 1, rows + t);
            return;
        }
        if (t >= size_t(n) * size_t(groups)) return;
        const int g = kv_dim / groups;
        float* x = rows + t * size_t(g);  // group t % groups of row t / groups
        uint32_t code[kMaxKvGroup];       // g elements of at most four bytes
        float scale = 0.0f;
        QuantStats ignored;  // the cache counts them when it stores the rows
        kv_encode_row(type, x, g, 1, code, &scale, ignored);
        kv_decode_row(type, code, &scale, g, 1, x);
    }
};

inline KvRoundTripRows kv_round_trip_rows_body(KvType type, float* rows, int n, int kv_dim,
                                               int groups) {
    if (groups <= 0 || kv_dim % groups != 0 || kv_dim / groups > kMaxKvGroup)
        throw std::invalid_argument("kv_round_trip_rows: " + std::to_string(kv_dim) +
                                    " values in " + std::to_string(groups) +
                                    " groups; groups must divide the row and hold at most " +
                                    std::to_string(kMaxKvGroup));
    return KvRoundTripRows{type, rows, n, kv_dim, groups};
}

}  // namespace kvw::kern
