// The fast CPU kernel set (`cpu:fast`, core/backend/cpu/fast_cpu_backend.h): each of its paths this
// CPU runs against a float64 product of the weights (block types dequantised by the `gguf`
// package, tests/data/make_quant_matmul.py; F16 / BF16 made and decoded in fast_kernel_cases.h)
// with x rounded as the set rounds it for the type: int8 blocks as llama.cpp rounds them, bf16 for
// BF16, none for F16 (the roundings written out below, not the code under test's); F16 / BF16 and
// Q8_0 / Q4_0 bit for bit in the order fast_kernels.h promises, written plainly
// (fast_kernel_cases.h), BF16 on AMX tiles in tdpbf16ps's own order; the paths give the same bits
// (BF16 among the paths that sum it in lanes); the results are bitwise equal across thread
// counts and batch sizes; what the set leaves to the reference kernels is the reference's; and the
// embedded model's perplexity on a held-out text moves by less than 0.5 %.
#include <QtTest>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/backend/cpu/act_round.h"
#include "core/backend/cpu/amx_tile_config.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/cpu_features.h"
#include "core/backend/cpu/fast_cpu_backend.h"
#include "core/backend/cpu/fast_kernels.h"
#include "core/engine/transformer.h"
#include "core/eval/full_cache_scorer.h"
#include "core/eval/perplexity.h"
#include "core/math/act_quant.h"
#include "core/model/builtin_models.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/gguf_requantize.h"
#include "core/model/model_loader.h"
#include "tests/unit/fast_kernel_cases.h"
#include "tests/unit/quant_matmul_cases.h"

using namespace kvw;
using namespace kvw::test;

namespace {

// x as the fast set multiplies it, in float64: per block of `block` elements, the scale
// d = max|x| / 127 (float32) and q = x · (1 / d) rounded to the nearest integer, ties to even.
std::vector<double> rounded_inputs(const std::vector<float>& x, int block) {
    std::vector<double> out(x.size());
    for (size_t b = 0; b < x.size(); b += size_t(block)) {
        float amax = 0.0f;
        for (int i = 0; i < block; ++i) amax = std::max(amax, std::fabs(x[b + size_t(i)]));
        const float d = amax / 127.0f;
        const float inverse = d > 0.0f ? 1.0f / d : 0.0f;
        for (int i = 0; i < block; ++i)
            out[b + size_t(i)] = double(d) * std::nearbyint(double(x[b + size_t(i)] * inverse));
    }
    return out;
}

// x as the fast set multiplies it for BF16 weights, in float64: each element rounded to the
// nearest bfloat16 (8 significant bits), ties to even, on its float32 bits.
std::vector<double> bf16_rounded(const std::vector<float>& x) {
    std::vector<double> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        uint32_t bits;
        std::memcpy(&bits, &x[i], 4);
        const uint32_t dropped = bits & 0xffffu, kept = bits >> 16;
        const bool up = dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u));
        const uint32_t rounded = (kept + (up ? 1u : 0u)) << 16;
        float f;
        std::memcpy(&f, &rounded, 4);
        out[i] = double(f);
    }
    return out;
}

// x as the fast set multiplies it for the weights of `c`.
std::vector<double> fast_inputs(const Case& c, const std::vector<float>& x) {
    switch (c.w.dtype) {
        case DType::Q8_0:
        case DType::Q4_0: return rounded_inputs(x, 32);
        case DType::Q4_K:
        case DType::Q6_K: return rounded_inputs(x, 256);
        case DType::BF16: return bf16_rounded(x);
        default: return {x.begin(), x.end()};
    }
}

// The instructions this CPU lacks for the path, named; null when it runs it. A QSKIP must be
// in the test function itself (in a helper it only returns from the helper), hence
// SKIP_UNLESS_CPU_RUNS.
const char* missing_instructions(const QString& path) {
    for (const cpu::FastKernel& k : cpu::fast_kernels())
        if (QString::fromUtf8(k.name.data(), qsizetype(k.name.size())) == path && !k.cpu_has()) {
            if (path == "amx") return "this CPU (or its OS) lacks AMX-INT8 / AMX-BF16 tiles";
            if (path == "vnni-bf16") return "this CPU is not a Zen 4 with AVX-512 BF16";
            if (path == "vnni") return "this CPU lacks AVX-512 F / BW / VL / VNNI";
            if (path == "avx-vnni") return "this CPU lacks AVX-VNNI";
            return "this CPU lacks AVX2 / FMA / F16C";
        }
    return nullptr;
}
#define SKIP_UNLESS_CPU_RUNS(path) \
    if (const char* missing = missing_instructions(path)) QSKIP(missing)

std::vector<float> product(Backend& backend, const Case& c, const std::vector<float>& x, int n) {
    std::vector<float> y(size_t(n * c.w.rows), NAN);
    backend.matmul(c.w, x.data(), n, y.data());
    return y;
}

// Batch sizes that reach every tile: 1 (one token), 2 .. 7 (the tiles of fast_tiles.inc, four
// tokens, and their tails; the avx2 path takes every size so), 8 .. 10, 16, 17 and 33 (the vnni
// path's vectors of sixteen tokens from cpu::kVnniBatchTokens on, fast_vnni_batch.cpp: partly
// filled, one full, full ones and a tail).
constexpr int kBatchSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 33};
static_assert(cpu::kVnniBatchTokens > 7 && cpu::kVnniBatchTokens <= 10);

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

// The embedded model with its matrices re-encoded as `type` by the project's quantiser.
std::shared_ptr<const Model> embedded_model_as(GgufType type) {
    const GgufFile file(map_file(find_builtin_model("default").string()));
    return load_gguf_model(bytes_in_memory(requantize_gguf(file, type), "default requantised"));
}

double held_out_perplexity(const std::shared_ptr<const Model>& model, Backend& backend,
                           const std::vector<int32_t>& tokens, int32_t bos) {
    const Transformer engine(model, backend);
    FullCacheScorer scorer(engine);
    return perplexity(tokens, bos, {128, 128}, scorer).perplexity();
}

// How `path` sums BF16 weights (cpu::FastKernel::bf16).
cpu::Bf16Sums bf16_sums_of(std::string_view path) {
    for (const cpu::FastKernel& k : cpu::fast_kernels())
        if (k.name == path) return k.bf16;
    return cpu::Bf16Sums::Lanes;
}

#if defined(__x86_64__)
// One output as AMX-BF16 computes it by the instruction's definition: a tile of one sum (1 × 1)
// from zero, tdpbf16ps chunk after chunk with a tile A of the row's one chunk of 32 bf16 and a
// tile B of x's (sixteen rows of one pair); no tile of sixteen rows or tokens as the kernel
// uses. cpu::cpu_has_amx() must have been true (it asks the OS for the tiles).
__attribute__((target("amx-tile,amx-bf16"))) float tdpbf16ps_sum(const uint16_t* w,
                                                                 const uint16_t* x, int64_t cols) {
    cpu::AmxTileConfig config;
    config.rows[0] = 1, config.colsb[0] = 4;   // the sum
    config.rows[1] = 1, config.colsb[1] = 64;  // the row's chunk
    config.rows[2] = 16, config.colsb[2] = 4;  // x's chunk, a pair a row
    cpu::load_amx_tile_config(config);
    _tile_zero(0);
    for (int64_t c = 0; c < cols; c += 32) {
        _tile_loadd(1, w + c, 64);
        _tile_loadd(2, x + c, 4);
        _tile_dpbf16ps(0, 1, 2);
    }
    float sum = 0.0f;
    _tile_stored(0, &sum, 4);
    _tile_release();
    return sum;
}

// One output as a vdpbf16ps kernel would compute it under fast_kernels.h's contract: sixteen
// lanes of vdpbf16ps over a row of `cols` (a multiple of 32) bf16 weights and x, one
// instruction per chunk of 32 from zero, then folded and added as promised, those sums too with
// MXCSR's DAZ / FTZ set.
__attribute__((target("avx512f,avx512bf16"))) float vdpbf16ps_sum(const uint16_t* w,
                                                                  const uint16_t* x, int64_t cols) {
    __m512 acc = _mm512_setzero_ps();
    for (int64_t c = 0; c < cols; c += 32)
        acc = _mm512_dpbf16_ps(acc, __m512bh(_mm512_loadu_si512(w + c)),
                               __m512bh(_mm512_loadu_si512(x + c)));
    float lane[16];
    _mm512_storeu_ps(lane, acc);
    const unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040);  // DAZ, FTZ
    volatile float e[8];
    for (int l = 0; l < 8; ++l) e[l] = lane[l] + lane[l + 8];
    const volatile float sum = ((e[0] + e[4]) + (e[2] + e[6])) + ((e[1] + e[5]) + (e[3] + e[7]));
    _mm_setcsr(saved);
    return sum;
}
#else
float vdpbf16ps_sum(const uint16_t*, const uint16_t*, int64_t) { return 0.0f; }
float tdpbf16ps_sum(const uint16_t*, const uint16_t*, int64_t) { return 0.0f; }
#endif

// Row r of a BF16 case's weights as stored.
const uint16_t* stored_bf16_row(const Case& c, int64_t r) {
    return reinterpret_cast<const uint16_t*>(c.stored->data()) + r * c.w.cols;
}

// Token t's x of `c` rounded to bf16 (bf16_rounded), as bf16 bits.
std::vector<uint16_t> bf16_bits(const Case& c, const std::vector<double>& rounded, int t) {
    std::vector<uint16_t> out(size_t(c.w.cols));
    for (int64_t k = 0; k < c.w.cols; ++k) {
        const float f = float(rounded[size_t(t * c.w.cols + k)]);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        out[size_t(k)] = uint16_t(bits >> 16);
    }
    return out;
}

}  // namespace

class TestFastKernels : public QObject {
    Q_OBJECT

private slots:
    void path_matches_float64_reference_data() {
        QTest::addColumn<QString>("path");
        for (const cpu::FastKernel& k : cpu::fast_kernels())
            QTest::newRow(std::string(k.name).c_str())
                << QString::fromUtf8(k.name.data(), qsizetype(k.name.size()));
    }

    // Q8_0, Q4_0, Q4_K, Q6_K, F16, BF16: rows not a multiple of any tile, several blocks or
    // chunks a row, every batch size of kBatchSizes (one-token tiles, batch tiles, vectors of
    // sixteen tokens and their tails): each output
    // within float32 rounding of the float64 product with x as the set rounds it (a wrong
    // nibble, scale, min or lane is off by O(1)).
    void path_matches_float64_reference() {
        QFETCH(QString, path);
        SKIP_UNLESS_CPU_RUNS(path);
        FastCpuBackend backend(1, path.toStdString());
        QCOMPARE(QString::fromUtf8(backend.path().data(), qsizetype(backend.path().size())), path);
        int checked = 0;
        for (const Case& c : fast_cases()) {
            for (const int n : kBatchSizes) {
                const std::vector<float> x = inputs(n, c.w.cols, uint32_t(40 + n));
                const std::vector<float> y = product(backend, c, x, n);
                const double err = worst_relative_error(c, fast_inputs(c, x), n, y);
                if (!(err < 1e-5))
                    QFAIL(qPrintable(QString("%1, %2 tokens: relative error %3")
                                         .arg(c.name.c_str())
                                         .arg(n)
                                         .arg(err)));
            }
            ++checked;
        }
        QCOMPARE(checked, 19);
    }

    // The rounding is what separates the sets: against x unrounded the same products are
    // further off than float32 rounding for some output (so the test above checks the rounding).
    void rounding_is_visible_against_unrounded_x() {
        FastCpuBackend backend(1);
        for (const Case& c : fast_cases()) {
            if (c.w.dtype == DType::F16) continue;  // x not rounded
            const std::vector<float> x = inputs(3, c.w.cols, 7);
            const double err = worst_relative_error(c, x, 3, product(backend, c, x, 3));
            QVERIFY2(err > 2e-5, qPrintable(QString("%1: %2").arg(c.name.c_str()).arg(err)));
        }
    }

    void float_types_sum_in_the_promised_order_data() { path_matches_float64_reference_data(); }

    // F16 / BF16 on each path: every output the bits of promised_order_sum over the weights'
    // values and x as rounded (so the paths agree with each other); the order matters on these
    // data: BF16 summed with the even element of each pair first, or F16 in the reference's
    // eight lanes (`cpu`), gives other bits for some outputs. BF16 on AMX tiles (the amx path,
    // cpu::Bf16Sums::Tiles): the bits of tdpbf16ps_sum, and the promised lane order gives other
    // bits for some outputs.
    void float_types_sum_in_the_promised_order() {
        QFETCH(QString, path);
        SKIP_UNLESS_CPU_RUNS(path);
        const bool on_tiles = bf16_sums_of(path.toStdString()) == cpu::Bf16Sums::Tiles;
        FastCpuBackend backend(2, path.toStdString());
        CpuBackend reference(2);
        for (const Case& c : fast_cases()) {
            if (c.w.dtype != DType::F16 && c.w.dtype != DType::BF16) continue;
            const int n = 3;
            const std::vector<float> x = inputs(n, c.w.cols, 21);
            const std::vector<double> rounded = fast_inputs(c, x);
            const std::vector<float> x_rounded(rounded.begin(), rounded.end());
            const std::vector<float> y = product(backend, c, x, n);
            int other_order = 0;
            for (int t = 0; t < n; ++t)
                for (int64_t r = 0; r < c.w.rows; ++r) {
                    const float* wr = c.reference.data() + r * c.w.cols;
                    const float* xt = x_rounded.data() + t * c.w.cols;
                    const bool tiles = on_tiles && c.w.dtype == DType::BF16;
                    const float want =
                        tiles ? tdpbf16ps_sum(stored_bf16_row(c, r),
                                              bf16_bits(c, rounded, t).data(), c.w.cols)
                              : promised_order_sum(c.w.dtype, wr, xt, c.w.cols);
                    const float got = y[size_t(t * c.w.rows + r)];
                    if (std::memcmp(&want, &got, 4) != 0)
                        QFAIL(qPrintable(QString("%1 token %2 row %3: %4, promised %5")
                                             .arg(c.name.c_str())
                                             .arg(t)
                                             .arg(r)
                                             .arg(double(got), 0, 'g', 9)
                                             .arg(double(want), 0, 'g', 9)));
                    if (c.w.dtype == DType::BF16) {
                        const float other = promised_order_sum(c.w.dtype, wr, xt, c.w.cols, !tiles);
                        other_order += std::memcmp(&other, &got, 4) != 0;
                    }
                }
            if (c.w.dtype == DType::F16) {
                const std::vector<float> eight_lanes = product(reference, c, x, n);
                for (size_t i = 0; i < y.size(); ++i)
                    other_order += std::memcmp(&eight_lanes[i], &y[i], 4) != 0;
            }
            QVERIFY2(
                other_order > 0,
                qPrintable(QString("%1: another order gives the same bits").arg(c.name.c_str())));
        }
    }

    void block_types_sum_in_the_promised_order_data() { path_matches_float64_reference_data(); }

    // Q8_0 / Q4_0 on each path, one token (the tiles) and twelve (the vnni path's vectors of
    // sixteen tokens): every output the bits of promised_block_sum; the per-lane order gives
    // other bits for some outputs on these data.
    void block_types_sum_in_the_promised_order() {
        QFETCH(QString, path);
        SKIP_UNLESS_CPU_RUNS(path);
        FastCpuBackend backend(2, path.toStdString());
        int checked = 0;
        for (const Case& c : fast_cases()) {
            if (c.w.dtype != DType::Q8_0 && c.w.dtype != DType::Q4_0) continue;
            int other_order = 0;
            for (const int n : {1, 12}) {
                const std::vector<float> x = inputs(n, c.w.cols, uint32_t(60 + n));
                const std::vector<float> y = product(backend, c, x, n);
                for (int t = 0; t < n; ++t)
                    for (int64_t r = 0; r < c.w.rows; ++r) {
                        const float* xt = x.data() + t * c.w.cols;
                        const float want = promised_block_sum(c, r, xt);
                        const float got = y[size_t(t * c.w.rows + r)];
                        if (std::memcmp(&want, &got, 4) != 0)
                            QFAIL(qPrintable(
                                QString("%1, %2 tokens, token %3 row %4: %5, promised %6")
                                    .arg(c.name.c_str())
                                    .arg(n)
                                    .arg(t)
                                    .arg(r)
                                    .arg(double(got), 0, 'g', 9)
                                    .arg(double(want), 0, 'g', 9)));
                        const float lanes = promised_block_sum(c, r, xt, true);
                        other_order += std::memcmp(&lanes, &got, 4) != 0;
                    }
            }
            QVERIFY2(
                other_order > 0,
                qPrintable(
                    QString("%1: the per-lane order gives the same bits").arg(c.name.c_str())));
            ++checked;
        }
        QVERIFY(checked >= 3);  // the generated Q8_0 / Q4_0 cases and the two made here
    }

    // The paths give the same bits: the integer lanes are exact and the float steps round
    // alike, BF16 also where products and partial sums are subnormal (flushed under MXCSR's
    // DAZ / FTZ on every path); for 5 tokens (the tiles) and 17 (the vnni and amx batches).
    // BF16 is compared among the paths that sum it in lanes (the amx path's tiles have their
    // own order: float_types_sum_in_the_promised_order).
    void paths_give_the_same_bits() {
        std::vector<std::string> present, bf16_in_lanes;
        for (const cpu::FastKernel& k : cpu::fast_kernels())
            if (k.cpu_has()) {
                present.emplace_back(k.name);
                if (k.bf16 == cpu::Bf16Sums::Lanes) bf16_in_lanes.emplace_back(k.name);
            }
        if (present.size() < 2) QSKIP("this CPU runs one path of the fast set only");
        std::vector<Case> cases = fast_cases();
        cases.push_back(float_case(DType::BF16, 19, 128, 5, true));
        for (const Case& c : cases) {
            const std::vector<std::string>& paths =
                c.w.dtype == DType::BF16 ? bf16_in_lanes : present;
            if (paths.size() < 2) continue;
            for (const int n : {5, 17}) {
                const std::vector<float> x = inputs(n, c.w.cols, 11);
                FastCpuBackend first(2, paths[0]);
                const std::vector<float> expected = product(first, c, x, n);
                for (size_t p = 1; p < paths.size(); ++p) {
                    FastCpuBackend other(2, paths[p]);
                    QVERIFY2(same_bits(product(other, c, x, n), expected),
                             qPrintable(QString("%1, %2 tokens: %3 differs from %4")
                                            .arg(c.name.c_str())
                                            .arg(n)
                                            .arg(paths[p].c_str())
                                            .arg(paths[0].c_str())));
                }
            }
        }
    }

    // The BF16 kernels give vdpbf16ps's bits (the order fast_kernels.h promises is that
    // instruction's, subnormals flushed included): each output against sixteen lanes of
    // vdpbf16ps run here over the stored weights and x rounded to bf16, one instruction per
    // chunk, folded and added as promised. The set has no vdpbf16ps path (measured slower than
    // its FMAs on this CPU, fast_kernels.h), so this is what keeps one possible.
    void bf16_kernels_give_vdpbf16ps_bits() {
        if (!cpu::cpu_has_avx512_bf16()) QSKIP("this CPU lacks AVX-512 BF16 (vdpbf16ps)");
        std::string_view path;  // the fastest path here that sums BF16 in lanes
        for (const cpu::FastKernel& k : cpu::fast_kernels())
            if (path.empty() && k.cpu_has() && k.bf16 == cpu::Bf16Sums::Lanes) path = k.name;
        FastCpuBackend backend(2, path);
        for (const Case& c :
             {float_case(DType::BF16, 37, 352, 4), float_case(DType::BF16, 19, 128, 5, true)}) {
            const int n = 3;
            const std::vector<float> x = inputs(n, c.w.cols, 17);
            const std::vector<double> rounded = bf16_rounded(x);
            const std::vector<float> y = product(backend, c, x, n);
            for (int t = 0; t < n; ++t)
                for (int64_t r = 0; r < c.w.rows; ++r) {
                    const float want = vdpbf16ps_sum(stored_bf16_row(c, r),
                                                     bf16_bits(c, rounded, t).data(), c.w.cols);
                    const float got = y[size_t(t * c.w.rows + r)];
                    QVERIFY2(std::memcmp(&want, &got, 4) == 0,
                             qPrintable(QString("%1 token %2 row %3: %4, vdpbf16ps %5")
                                            .arg(c.name.c_str())
                                            .arg(t)
                                            .arg(r)
                                            .arg(double(got), 0, 'g', 9)
                                            .arg(double(want), 0, 'g', 9)));
                }
        }
    }

    // The tiny BF16 case does reach below float32's normal range: without the flush some
    // output would differ (a flushed and an unflushed sum of these products).
    void tiny_case_has_subnormal_sums() {
        const Case c = float_case(DType::BF16, 19, 128, 5, true);
        const std::vector<float> x = inputs(1, c.w.cols, 11);
        const std::vector<double> rounded = fast_inputs(c, x);
        int subnormal = 0;
        for (int64_t r = 0; r < c.w.rows; ++r)
            for (int64_t k = 0; k < c.w.cols; ++k) {
                const double p = double(c.reference[size_t(r * c.w.cols + k)]) * rounded[size_t(k)];
                subnormal += p != 0.0 && std::fabs(p) < double(FLT_MIN);
            }
        QVERIFY(subnormal > 0);
    }

    // A BF16 product sets MXCSR's DAZ / FTZ for its kernels only: the calling thread's MXCSR
    // is what it was.
    void mxcsr_is_restored() {
#if defined(__x86_64__)
        const Case c = float_case(DType::BF16, 37, 352, 4);
        const unsigned before = _mm_getcsr();
        for (const cpu::FastKernel& k : cpu::fast_kernels()) {
            if (!k.cpu_has()) continue;
            FastCpuBackend backend(1, k.name);
            product(backend, c, inputs(2, c.w.cols, 1), 2);
            QCOMPARE(_mm_getcsr(), before);
        }
#else
        QSKIP("MXCSR is x86's");
#endif
    }

    // x's int8 rounding on AVX-512 (act_round_avx512.cpp) gives the scalar functions' bits
    // (core/math/act_quant.h): scales, quants and sums per 16, on blocks of mixed magnitudes,
    // an all-zero block, NaN at every place of a block, infinities, subnormals, signed zeros and
    // exact halves (x · (1/d) landing on .5: 127 · k / 254 with max|x| = 1, which rounds to even).
    void avx512_rounding_gives_the_scalar_bits() {
#if defined(__x86_64__)
        if (!cpu::cpu_has_avx512()) QSKIP("this CPU lacks AVX-512 F / BW / VL");
        constexpr int64_t kBlocks256 = 16, kCols = 256 * kBlocks256;
        std::vector<float> x(static_cast<size_t>(kCols));
        uint32_t seed = 5;
        for (int64_t i = 0; i < kCols; ++i) {
            seed = seed * 1664525u + 1013904223u;
            const float unit = float(seed >> 8) / float(1u << 23) - 1.0f;
            x[size_t(i)] = std::ldexp(unit, int(i / 256) * 4 - 30);  // 2^-30 .. 2^30
        }
        for (int i = 256; i < 512; ++i) x[size_t(i)] = 0.0f;          // an all-zero block of 256
        for (int k = 0; k < 32; ++k) x[size_t(2560 + 33 * k)] = NAN;  // at each place of a block
        x[900] = INFINITY;
        x[1400] = -INFINITY;
        x[1700] = std::ldexp(1.0f, -140);  // subnormal
        x[1701] = -0.0f;
        x[2048] = 1.0f;  // a block whose max is 1: halves at 127 · k / 254
        for (int k = 1; k < 32; ++k) x[size_t(2048 + k)] = float(2 * k - 1) / 254.0f;
        const auto bytes_equal = [](const auto& a, const auto& b) {
            return a.size() == b.size() &&
                   std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
        };
        std::vector<ActBlock32> want32(static_cast<size_t>(kCols / 32)), got32(want32.size());
        round_act_row_32(x.data(), int64_t(want32.size()), want32.data());
        cpu::round_act_row_32_avx512(x.data(), int64_t(got32.size()), got32.data());
        QVERIFY(bytes_equal(want32, got32));
        std::vector<ActBlock256> want256(static_cast<size_t>(kBlocks256)), got256(want256.size());
        round_act_row_256(x.data(), kBlocks256, want256.data());
        cpu::round_act_row_256_avx512(x.data(), kBlocks256, got256.data());
        QVERIFY(bytes_equal(want256, got256));
        // the data reach the cases named: a zero block, a NaN quant, a tie rounded to even
        QCOMPARE(want256[1].d, 0.0f);
        QCOMPARE(int(want32[2560 / 32].q[0]), 0);
        QVERIFY(want32[2560 / 32].d > 0.0f);       // the NaN left out of max|x|
        QCOMPARE(int(want32[2048 / 32].q[1]), 0);  // 0.5 → 0
        QCOMPARE(int(want32[2048 / 32].q[2]), 2);  // 1.5 → 2
#else
        QSKIP("AVX-512 is x86's");
#endif
    }

    void bitwise_stable_over_threads_and_batches_data() { path_matches_float64_reference_data(); }

    // 1, 2 and 3 threads give the same bits; a token's outputs are the same bits alone as in a
    // batch of any size of kBatchSizes (every batch tile and tail) at any place in it.
    void bitwise_stable_over_threads_and_batches() {
        QFETCH(QString, path);
        SKIP_UNLESS_CPU_RUNS(path);
        const std::vector<Case> cases = fast_cases();
        // one thread's batch of each case and size, [case][size]
        std::vector<std::vector<float>> one_thread(cases.size() * std::size(kBatchSizes));
        for (const int threads : {1, 2, 3}) {
            FastCpuBackend backend(threads, path.toStdString());
            for (const Case& c : cases) {
                for (size_t size = 0; size < std::size(kBatchSizes); ++size) {
                    const int n = kBatchSizes[size];
                    if (n == 1) continue;
                    const std::vector<float> x = inputs(n, c.w.cols, 99);
                    const std::vector<float> batch = product(backend, c, x, n);
                    for (int t = 0; t < n; ++t) {
                        const std::vector<float> token(x.begin() + t * c.w.cols,
                                                       x.begin() + (t + 1) * c.w.cols);
                        const std::vector<float> alone = product(backend, c, token, 1);
                        QVERIFY2(std::memcmp(alone.data(), batch.data() + t * c.w.rows,
                                             alone.size() * 4) == 0,
                                 qPrintable(QString("%1 token %2 of %3, %4 threads")
                                                .arg(c.name.c_str())
                                                .arg(t)
                                                .arg(n)
                                                .arg(threads)));
                    }
                    std::vector<float>& reference =
                        one_thread[size_t(&c - cases.data()) * std::size(kBatchSizes) + size];
                    if (threads == 1)
                        reference = batch;
                    else
                        QVERIFY2(same_bits(batch, reference),
                                 qPrintable(QString("%1, %2 tokens: %3 threads differ from 1")
                                                .arg(c.name.c_str())
                                                .arg(n)
                                                .arg(threads)));
                }
            }
        }
    }

    // What the set has no kernel for (F32; F16 / BF16 rows that are not whole chunks of 32, as
    // in the data's shapes) goes through the reference kernels: the same bits as `cpu`.
    void other_weights_are_the_references() {
        FastCpuBackend fast(2);
        CpuBackend reference(2);
        int checked = 0;
        for (const Case& c : load_cases()) {
            if (cpu::fast_kernels_handle(c.w)) continue;
            const std::vector<float> x = inputs(3, c.w.cols, 5);
            QVERIFY2(same_bits(product(fast, c, x, 3), product(reference, c, x, 3)),
                     c.name.c_str());
            ++checked;
        }
        QCOMPARE(checked, 3);
    }

    void is_a_backend_name() {
        const std::vector<std::string> names = backend_names();
        QVERIFY(std::find(names.begin(), names.end(), "cpu:fast") != names.end());
        QCOMPARE(std::string(create_backend("cpu:fast", 1)->name()), std::string("cpu:fast"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, FastCpuBackend(1, "sse9"));
        // its device names the path it runs, so a benchmark says which kernels it measured
        for (const cpu::FastKernel& k : cpu::fast_kernels())
            if (k.cpu_has()) {
                const std::string device = FastCpuBackend(1, k.name).device().name;
                QVERIFY2(device.find(std::string(k.name) + " kernels") != std::string::npos,
                         device.c_str());
            }
    }

    // The price of the rounding in quality: on the embedded model, its matrices stored in each
    // type the set has kernels for, the held-out chapter's perplexity on `cpu:fast` within 0.5 %
    // of `cpu`'s.
    void perplexity_within_half_a_percent_of_the_reference_data() {
        QTest::addColumn<int>("type");
        for (const GgufType t : {GgufType::Q8_0, GgufType::Q4_0, GgufType::Q4_K, GgufType::Q6_K,
                                 GgufType::F16, GgufType::BF16})
            QTest::newRow(std::string(gguf_type_name(t)).c_str()) << int(t);
    }

    void perplexity_within_half_a_percent_of_the_reference() {
        QFETCH(int, type);
        const auto model = embedded_model_as(GgufType(type));
        QCOMPARE(model->weights.layers[0].w_down.dtype, dtype_of(GgufType(type)));
        std::ifstream file(QT_TESTCASE_SOURCEDIR "/../resources/text/kjv-held-out-ge20.txt");
        std::ostringstream text;
        text << file.rdbuf();
        const std::vector<int32_t> tokens = model->tokenizer.encode(text.str(), true);
        QVERIFY(tokens.size() > 600);
        CpuBackend reference(2);
        FastCpuBackend fast(2);
        const int32_t bos = model->tokenizer.bos_id();
        const double ref = held_out_perplexity(model, reference, tokens, bos);
        const double got = held_out_perplexity(model, fast, tokens, bos);
        const double change = got / ref - 1.0;
        qInfo("%s: perplexity cpu %.4f, cpu:fast %.4f (%+.3f %%)",
              std::string(gguf_type_name(GgufType(type))).c_str(), ref, got, 100.0 * change);
        QVERIFY(std::isfinite(got));
        QVERIFY2(std::fabs(change) < 0.005, qPrintable(QString("%1 %").arg(100.0 * change)));
    }
};

QTEST_GUILESS_MAIN(TestFastKernels)
#include "test_fast_kernels.moc"
