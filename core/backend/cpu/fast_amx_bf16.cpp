// BF16 weights on the amx path (fast_kernels.h): Intel's AMX-BF16 tile products, `tdpbf16ps`,
// for every batch size, one token included. Tile A holds sixteen weight rows' chunk of 32 bf16
// as stored (a row apart); tile B the same chunk of sixteen tokens' x, rounded to
// bf16 as on every path and laid out here so that its row p holds each token's pair p; tile C
// sixteen rows × sixteen tokens of float sums, which the chunks of a row accumulate in order
// from zero and which are stored once, at the end. One instruction does 16 × 16 × 32 products
// where an FMA does sixteen.
//
// tdpbf16ps rounds in no order that IEEE steps reproduce (the odd or the even element first, a
// pair or a chunk rounded once: 56–64 % of 51,200 random outputs differed, docs/ARCHITECTURE.md
// §5.4), so these are not the other paths' bits: the amx path is its own numeric order for
// BF16. It is the same for every tile, thread and batch (each output is its own row of A and
// column of B through the same chunks; the products of the other rows and tokens of a tile do
// not touch it), which is why one token is computed on the tiles too, in tiles of one column:
// the decode step and a prefill give the same bits.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/cpu/amx_tile_config.h"
#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"

#define KVW_AMX_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,amx-tile,amx-bf16")))
#define KVW_AMX_BF16_INLINE KVW_AMX_BF16 inline __attribute__((always_inline))

namespace kvw::cpu {

namespace {

constexpr int kTileRows = 16;           // weight rows of tiles A and C
constexpr int kTileTokens = 16;         // tokens of tiles B and C
constexpr int kPairs = kFastChunk / 2;  // a chunk's bf16 pairs: tile A's columns, tile B's rows
constexpr size_t kTileRowBytes = 64;    // every tile's rows: 16 pairs or 16 floats
static_assert(kPairs * 4 == kTileRowBytes && kTileTokens * 4 == kTileRowBytes);

// A tile as tile loads read it from a packed copy, rows 64 bytes apart: sixteen weight rows' chunk
// (row i, its sixteen pairs) or a chunk of sixteen tokens' x (row p, each token's pair p).
struct PairTile {
    alignas(64) uint32_t pair[16][16];
};

// Output tiles as stored: row, token.
using Sums = float[kTileRows][kTileTokens];

// Where a tile's rows come from, chunk after chunk: chunk c's tile at chunks + c · chunk_bytes,
// its rows row_stride apart.
struct TileSource {
    const uint8_t* chunks;
    size_t chunk_bytes, row_stride;
    const uint8_t* at(int64_t c) const { return chunks + size_t(c) * chunk_bytes; }
};

// `packed` as a source of PairTiles, chunk after chunk.
TileSource packed_source(const PairTile* packed) {
    return {reinterpret_cast<const uint8_t*>(packed), sizeof(PairTile), kTileRowBytes};
}

// Weight rows [r0, r0 + count) (count < 16: a range's last rows) packed into PairTiles, one per
// chunk, the rows from count on zero: tile A always loads sixteen rows. (Every row packed so,
// for tile loads of 1 KiB in one piece, was slower: a decode step's 2,048 × 2,048 on one thread
// took 0.89–1.08 ms against 0.51–0.55 in place, the copies' stores outweighing what the loads
// gained.)
KVW_AMX_BF16 void pack_rows(const WeightTensor& w, int64_t r0, int count, int64_t chunks,
                            PairTile* out) {
    for (int i = 0; i < kTileRows; ++i) {
        const uint8_t* row = i < count ? w.row_ptr(r0 + i) : nullptr;
        for (int64_t c = 0; c < chunks; ++c)
            _mm512_store_si512(out[c].pair[i], row ? _mm512_loadu_si512(row + c * kTileRowBytes)
                                                   : _mm512_setzero_si512());
    }
}

// Tokens [t0, t0 + 16) of x (token_stride chunks apart) laid out as PairTiles, one per chunk;
// tokens from n on zero.
void lay_out(const ActChunkBf16* x, int64_t token_stride, int64_t chunks, int64_t t0, int n,
             PairTile* out) {
    const int64_t valid = std::min<int64_t>(kTileTokens, n - t0);
    for (int64_t c = 0; c < chunks; ++c) {
        PairTile& tile = out[c];
        for (int t = 0; t < kTileTokens; ++t) {
            uint32_t pairs[kPairs] = {};
            if (t < valid) std::memcpy(pairs, x[(t0 + t) * token_stride + c].bf16, sizeof pairs);
            for (int p = 0; p < kPairs; ++p) tile.pair[p][t] = pairs[p];
        }
    }
}

// Tiles 0–3 the sums (row tile i, token group j: 2i + j), 4–5 weights, 6–7 x: sixteen rows each,
// of 64 bytes (A) or `tokens` columns (B and C: 16, or 1 for a single token).
KVW_AMX_BF16 void configure(int tokens) {
    AmxTileConfig c;
    for (int t = 0; t < 8; ++t) {
        c.rows[t] = kTileRows;
        c.colsb[t] = uint16_t(t == 4 || t == 5 ? kTileRowBytes : 4 * tokens);
    }
    load_amx_tile_config(c);
}

// RT row tiles (ws[i]) × TG token groups (xs[j]), every chunk, into out[RT · TG] (row tile i,
// group j at out[TG · i + j]).
template <int RT, int TG>
KVW_AMX_BF16_INLINE void products(const TileSource* ws, const TileSource* xs, int64_t chunks,
                                  Sums* out) {
    _tile_zero(0);
    if constexpr (TG > 1) _tile_zero(1);
    if constexpr (RT > 1) _tile_zero(2);
    if constexpr (RT > 1 && TG > 1) _tile_zero(3);
    for (int64_t c = 0; c < chunks; ++c) {
        _tile_loadd(4, ws[0].at(c), ws[0].row_stride);
        _tile_loadd(6, xs[0].at(c), xs[0].row_stride);
        _tile_dpbf16ps(0, 4, 6);
        if constexpr (TG > 1) {
            _tile_loadd(7, xs[1].at(c), xs[1].row_stride);
            _tile_dpbf16ps(1, 4, 7);
        }
        if constexpr (RT > 1) {
            _tile_loadd(5, ws[1].at(c), ws[1].row_stride);
            _tile_dpbf16ps(2, 5, 6);
            if constexpr (TG > 1) _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, out[0], kTileRowBytes);
    if constexpr (TG > 1) _tile_stored(1, out[1], kTileRowBytes);
    if constexpr (RT > 1) _tile_stored(2, out[TG], kTileRowBytes);
    if constexpr (RT > 1 && TG > 1) _tile_stored(3, out[3], kTileRowBytes);
}

// A tile's sums into y[t · y_stride + r] for its `rows` rows from r0 and `tokens` tokens from t0.
void store(const Sums& sums, int64_t r0, int rows, int64_t t0, int tokens, float* y,
           int64_t y_stride) {
    for (int t = 0; t < tokens; ++t) {
        float* out = y + (t0 + t) * y_stride + r0;
        for (int r = 0; r < rows; ++r) out[r] = sums[r][t];
    }
}

// The tokens a pass over the rows takes: x's source per group of sixteen, the first token of
// group 0 and the tokens in all.
struct TokenGroups {
    const TileSource* xs;
    int64_t groups, t0;
    int n;
};

// The RT row tiles ws from r0 (`rows` rows, the last tile maybe partial) × TG groups from g.
template <int RT, int TG>
KVW_AMX_BF16 void block(const TileSource* ws, int64_t r0, int rows, const TokenGroups& tokens,
                        int64_t g, int64_t chunks, float* y, int64_t y_stride) {
    alignas(64) Sums sums[RT * TG];
    products<RT, TG>(ws, tokens.xs + g, chunks, sums);
    for (int i = 0; i < RT; ++i)
        for (int j = 0; j < TG; ++j) {
            const int64_t t0 = tokens.t0 + (g + j) * kTileTokens;
            store(sums[TG * i + j], r0 + i * kTileRows, std::min(kTileRows, rows - i * kTileRows),
                  t0, int(std::min<int64_t>(kTileTokens, tokens.n - t0)), y, y_stride);
        }
}

// The RT row tiles × every group, in pairs of groups.
template <int RT>
KVW_AMX_BF16 void row_tiles(const TileSource* ws, int64_t r0, int rows, const TokenGroups& tokens,
                            int64_t chunks, float* y, int64_t y_stride) {
    int64_t g = 0;
    for (; g + 2 <= tokens.groups; g += 2)
        block<RT, 2>(ws, r0, rows, tokens, g, chunks, y, y_stride);
    if (g < tokens.groups) block<RT, 1>(ws, r0, rows, tokens, g, chunks, y, y_stride);
}

// Rows [row_begin, row_end) × the tokens, the tiles reading the rows in place: in pairs of row
// tiles (32 rows) when there are groups of tokens to share them, one tile at a time for a single
// token, then a tail of fewer rows packed. A decode step reads its rows from memory, and sixteen
// rows' streams kept it closer to the FMA kernels than thirty-two: kvw bench decode, BF16
// TinyLlama shape, 2 threads, Intel AMX VM, 16 steps, alternated: 14.0 / 14.0 against 12.9 /
// 13.8 tok/s (the vnni path's FMAs 14.9 / 15.1).
KVW_AMX_BF16 void rows_pass(const WeightTensor& w, const TokenGroups& tokens, int64_t chunks,
                            float* y, int64_t row_begin, int64_t row_end) {
    const auto in_place = [&](int64_t r) {
        return TileSource{w.row_ptr(r), kTileRowBytes, w.row_bytes()};
    };
    int64_t r = row_begin;
    if (tokens.n > 1)
        for (; r + 2 * kTileRows <= row_end; r += 2 * kTileRows) {
            const TileSource ws[2] = {in_place(r), in_place(r + kTileRows)};
            row_tiles<2>(ws, r, 2 * kTileRows, tokens, chunks, y, w.rows);
        }
    thread_local std::vector<PairTile> packed;
    for (; r < row_end; r += kTileRows) {
        const int rows = int(std::min<int64_t>(kTileRows, row_end - r));
        TileSource ws[1] = {in_place(r)};
        if (rows < kTileRows) {
            packed.resize(size_t(chunks));
            pack_rows(w, r, rows, chunks, packed.data());
            ws[0] = packed_source(packed.data());
        }
        row_tiles<1>(ws, r, rows, tokens, chunks, y, w.rows);
    }
}

// x laid out per call in runs of token groups whose layout fits kLaidBytes (in L2 while the
// rows pass), the same bound as the vnni batches'.
constexpr int64_t kLaidBytes = 768 << 10;

KVW_AMX_BF16 void bf16_amx(const WeightTensor& w, const ActChunkBf16* x, int n, float* y,
                           int64_t row_begin, int64_t row_end) {
    const int64_t chunks = w.cols / kFastChunk;
    if (n == 1) {
        // One token's chunk as stored is a tile B of one column: its pair p, the four bytes at
        // 4p, is row p. Nothing laid out in a decode step, which calls this once per claim of
        // rows (laying out sixteen columns there took the BF16 decode from 15.6 to 11.5 tok/s).
        const TileSource token{reinterpret_cast<const uint8_t*>(x), sizeof(ActChunkBf16), 4};
        configure(1);
        rows_pass(w, {&token, 1, 0, 1}, chunks, y, row_begin, row_end);
        _tile_release();
        return;
    }
    const int64_t token_stride = fast_token_stride(chunks, sizeof(ActChunkBf16));
    const int64_t groups = (n + kTileTokens - 1) / kTileTokens;
    const int64_t per_run = std::max<int64_t>(1, kLaidBytes / (chunks * int64_t(sizeof(PairTile))));
    thread_local std::vector<PairTile> laid;
    thread_local std::vector<TileSource> sources;
    laid.resize(size_t(std::min(groups, per_run) * chunks));
    sources.resize(size_t(std::min(groups, per_run)));
    configure(kTileTokens);
    for (int64_t g0 = 0; g0 < groups; g0 += per_run) {
        const int64_t run = std::min(groups, g0 + per_run) - g0;
        for (int64_t g = 0; g < run; ++g) {
            PairTile* tiles = laid.data() + g * chunks;
            lay_out(x, token_stride, chunks, (g0 + g) * kTileTokens, n, tiles);
            sources[size_t(g)] = packed_source(tiles);
        }
        rows_pass(w, {sources.data(), run, g0 * kTileTokens, n}, chunks, y, row_begin, row_end);
    }
    _tile_release();
}

}  // namespace

void fast_bf16_amx(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                   int64_t row_end) {
    bf16_amx(w, static_cast<const ActChunkBf16*>(x), n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
