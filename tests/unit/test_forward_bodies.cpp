// The forward's kernel bodies (kernels/bodies/), run on the CPU by the host launcher
// (kernels/launch/host_launch.h) from the same builders the CUDA launchers call, over awkward
// shapes: against float64 references written here, measured by normalised mean squared error as
// ggml's test-backend-ops does (tolerances per op and storage type), and bit for bit against the
// CPU code each body stands for (rmsnorm, rope_apply, swiglu, weight_row_to_float, kv_encode_row
// / kv_decode_row, the scalar CPU matmul and the scalar CPU attention kernel). Weights of every
// storage type come from the independent gguf package (quant_matmul_cases.h).
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/backend/backend.h"
#include "core/backend/cpu/attention_kernels.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/math/dequant_element.h"
#include "core/math/kv_quant.h"
#include "core/math/rmsnorm.h"
#include "core/math/rope.h"
#include "core/math/swiglu.h"
#include "kernels/bodies/attention.h"
#include "kernels/bodies/elementwise.h"
#include "kernels/bodies/kv_round_trip.h"
#include "kernels/bodies/matvec.h"
#include "kernels/bodies/rmsnorm_rows.h"
#include "kernels/bodies/rope_rows.h"
#include "kernels/bodies/widen_rows.h"
#include "kernels/launch/host_launch.h"
#include "tests/same_bits.h"
#include "tests/unit/attention_case.h"
#include "tests/unit/attention_reference.h"
#include "tests/unit/quant_matmul_cases.h"
#include "tests/unit/reference_rope.h"

using namespace kvw;

namespace {

constexpr float kSentinel = 12345.0f;

// Σ (got − ref)² / Σ ref²: ggml test-backend-ops' error measure.
double nmse(const std::vector<float>& got, const std::vector<double>& ref) {
    double err = 0.0, norm = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double d = double(got[i]) - ref[i];
        err += d * d;
        norm += ref[i] * ref[i];
    }
    return norm > 0.0 ? err / norm : err;
}

double nmse(const std::vector<float>& got, const std::vector<float>& ref) {
    return nmse(got, std::vector<double>(ref.begin(), ref.end()));
}

#define EXPECT_NMSE(got, ref, tol, what)                                                       \
    do {                                                                                       \
        const double e_ = nmse(got, ref);                                                      \
        if (!(e_ <= (tol)))                                                                    \
            QFAIL(qPrintable(QString("%1: nmse %2 > %3").arg(what).arg(e_).arg(double(tol)))); \
    } while (0)

std::vector<float> random_floats(size_t n, std::mt19937& rng, float scale = 1.0f) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> out(n);
    for (float& f : out) f = normal(rng);
    return out;
}

QString dtype_tag(const test::Case& c) { return QString::fromStdString(c.name); }

const cpu::AttentionKernel& scalar_attention_kernel() {
    for (const cpu::AttentionKernel& k : cpu::attention_kernels())
        if (k.name == "scalar") return k;
    qFatal("no scalar attention kernel");
}

}  // namespace

class TestForwardBodies : public QObject {
    Q_OBJECT

private slots:
    // Every storage type widened: the gguf package's values and weight_row_to_float's, bit for
    // bit, and nothing written past the matrix.
    void dequantize_rows_gives_the_file_values() {
        for (const test::Case& c : test::load_cases()) {
            const size_t count = size_t(c.w.rows * c.w.cols);
            std::vector<float> out(count + 7, kSentinel);
            kern::host_launch(
                kern::dequantize_rows_body(c.w.data, c.w.dtype, c.w.rows, c.w.cols, out.data()));
            for (size_t i = count; i < out.size(); ++i) QCOMPARE(out[i], kSentinel);
            out.resize(count);
            EXPECT_SAME_BITS(out, c.reference, dtype_tag(c) + " against gguf");
            std::vector<float> cpu(count);
            for (int64_t r = 0; r < c.w.rows; ++r)
                weight_row_to_float(c.w, r, &cpu[size_t(r * c.w.cols)]);
            EXPECT_SAME_BITS(out, cpu, dtype_tag(c) + " against weight_row_to_float");
        }
    }

    // Rows gathered by token (repeated, out of order, the last row); a negative token leaves
    // its row as it was.
    void embed_rows_gathers_by_token() {
        for (const test::Case& c : test::load_cases()) {
            const int32_t last = int32_t(c.w.rows - 1);
            const std::vector<int32_t> tokens = {last, -1, 0, 2, 2, last / 2};
            const int n = int(tokens.size());
            const size_t cols = size_t(c.w.cols);
            std::vector<float> x(size_t(n) * cols, kSentinel);
            kern::host_launch(
                kern::embed_rows_body(c.w.data, c.w.dtype, c.w.cols, tokens.data(), n, x.data()));
            std::vector<float> want(x.size(), kSentinel);
            for (int i = 0; i < n; ++i)
                if (tokens[size_t(i)] >= 0)
                    std::copy_n(&c.reference[size_t(tokens[size_t(i)]) * cols], cols,
                                &want[size_t(i) * cols]);
            EXPECT_SAME_BITS(x, want, dtype_tag(c));
        }
    }

    // core/math/dequant_element.h, element by element, gives every value of the block
    // dequantisers of dequant.h bit for bit, over every block of the gguf cases.
    void elements_equal_the_block_dequantisers() {
        for (const test::Case& c : test::load_cases()) {
            if (!dtype_is_quantized(c.w.dtype)) continue;
            const kern::WeightLayout layout = kern::weight_layout(c.w.dtype, c.w.cols);
            std::vector<float> block(static_cast<size_t>(layout.block_elems));
            std::vector<float> elements(block.size());
            for (int64_t r = 0; r < c.w.rows; ++r) {
                for (int64_t b = 0; b < layout.blocks_per_row(); ++b) {
                    const uint8_t* at = layout.row(c.w.data, r) + size_t(b) * layout.block_bytes;
                    kern::dequant_weight_block(c.w.dtype, at, block.data());
                    // The sub-block factors only where the type has them (a Q8_0 block is
                    // 34 bytes: reading Q6_K's scale at byte 208 would leave it).
                    float dl[8] = {}, ml[8] = {}, dsc[16] = {};
                    if (c.w.dtype == DType::Q4_K)
                        q4_k_sub_scales(at + 4, load_fp16_le(at), load_fp16_le(at + 2), dl, ml);
                    if (c.w.dtype == DType::Q6_K) q6_k_sub_scales(at, load_fp16_le(at + 208), dsc);
                    for (int e = 0; e < layout.block_elems; ++e) {
                        const size_t i = size_t(e);
                        switch (c.w.dtype) {
                            case DType::Q8_0: elements[i] = dequant_element_q8_0(at, e); break;
                            case DType::Q4_0: elements[i] = dequant_element_q4_0(at, e); break;
                            case DType::Q4_K:
                                elements[i] = dequant_element_q4_k(at, dl, ml, e);
                                break;
                            case DType::Q6_K: elements[i] = dequant_element_q6_k(at, dsc, e); break;
                            default: break;
                        }
                    }
                    EXPECT_SAME_BITS(elements, block,
                                     dtype_tag(c) + QString(" row %1 block %2").arg(r).arg(b));
                }
            }
        }
    }

    // Every storage type: the scalar CPU matmul's bits for rows of one segment (to rounding for
    // longer ones), and the float64 product of gguf's values within float32 accumulation error.
    void matvec_matches_the_scalar_cpu_matmul() {
        const std::unique_ptr<Backend> cpu = make_cpu_backend(1, "scalar");
        for (const test::Case& c : test::load_cases()) {
            for (int n : {1, 3, 5}) {
                const std::vector<float> x = test::inputs(n, c.w.cols, uint32_t(17 * n + 1));
                const size_t count = size_t(n) * size_t(c.w.rows);
                std::vector<float> y(count + 3, kSentinel);
                std::vector<float> lanes(kern::matvec_scratch_floats(c.w.rows, c.w.cols, n));
                kern::matvec_passes(kern::matvec_call(c.w.data, c.w.dtype, c.w.rows, c.w.cols,
                                                      x.data(), n, y.data(), lanes.data()),
                                    [](const auto& body) { kern::host_launch(body); });
                for (size_t i = count; i < y.size(); ++i) QCOMPARE(y[i], kSentinel);
                y.resize(count);
                std::vector<float> want(count);
                cpu->matmul(c.w, x.data(), n, want.data());
                const QString where = dtype_tag(c) + QString(" n=%1").arg(n);
                if (c.w.cols <= kern::kMatVecSegment)
                    EXPECT_SAME_BITS(y, want, where);
                else  // segments summed apart
                    EXPECT_NMSE(y, want, 1e-12, where + " against the scalar CPU matmul");
                std::vector<double> ref(count, 0.0);
                for (int t = 0; t < n; ++t)
                    for (int64_t r = 0; r < c.w.rows; ++r)
                        for (int64_t k = 0; k < c.w.cols; ++k)
                            ref[size_t(t * c.w.rows + r)] +=
                                double(c.reference[size_t(r * c.w.cols + k)]) *
                                double(x[size_t(t * c.w.cols + k)]);
                EXPECT_NMSE(y, ref, 1e-10, where);
            }
        }
    }

    // Rows out of place and in place: rmsnorm()'s bits, and float64 RMSNorm.
    void rmsnorm_rows_matches_rmsnorm() {
        std::mt19937 rng(3);
        for (auto [rows, dim] : {std::pair{1, 1}, {1, 37}, {5, 100}, {33, 257}, {3, 4096}}) {
            const std::vector<float> x = random_floats(size_t(rows) * dim, rng, 3.0f);
            const std::vector<float> weight = random_floats(size_t(dim), rng);
            const float eps = 1e-5f;
            std::vector<float> out(x.size(), kSentinel), in_place = x;
            std::vector<float> inverse(static_cast<size_t>(rows));
            const auto host = [](const auto& body) { kern::host_launch(body); };
            kern::rmsnorm_passes(
                {x.data(), weight.data(), rows, dim, eps, out.data(), inverse.data()}, host);
            kern::rmsnorm_passes(
                {in_place.data(), weight.data(), rows, dim, eps, in_place.data(), inverse.data()},
                host);
            std::vector<float> want(x.size());
            std::vector<double> ref(x.size());
            for (int r = 0; r < rows; ++r) {
                const size_t at = size_t(r) * dim;
                rmsnorm(&x[at], weight.data(), dim, eps, &want[at]);
                double sum = 0.0;
                for (int d = 0; d < dim; ++d) sum += double(x[at + d]) * double(x[at + d]);
                const double inv = 1.0 / std::sqrt(sum / dim + double(eps));
                for (int d = 0; d < dim; ++d)
                    ref[at + d] = double(x[at + d]) * inv * double(weight[size_t(d)]);
            }
            const QString where = QString("%1x%2").arg(rows).arg(dim);
            EXPECT_SAME_BITS(out, want, where);
            EXPECT_SAME_BITS(in_place, want, where + " in place");
            EXPECT_NMSE(out, ref, 1e-12, where);
        }
    }

    // A float sum of two floats is the float64 sum rounded once: exact references.
    void bias_and_residual_adds_are_exact() {
        std::mt19937 rng(4);
        for (auto [rows, dim] : {std::pair{1, 1}, {3, 37}, {7, 130}}) {
            const std::vector<float> x = random_floats(size_t(rows) * dim, rng);
            const std::vector<float> bias = random_floats(size_t(dim), rng);
            const std::vector<float> y = random_floats(x.size(), rng);
            std::vector<float> biased = x, summed = x, want_biased(x.size()), want_summed(x.size());
            kern::host_launch(kern::add_bias_rows_body(biased.data(), bias.data(), rows, dim));
            kern::host_launch(kern::add_into_body(summed.data(), y.data(), x.size()));
            for (size_t i = 0; i < x.size(); ++i) {
                want_biased[i] = float(double(x[i]) + double(bias[i % size_t(dim)]));
                want_summed[i] = float(double(x[i]) + double(y[i]));
            }
            const QString where = QString("%1x%2").arg(rows).arg(dim);
            EXPECT_SAME_BITS(biased, want_biased, where + " bias");
            EXPECT_SAME_BITS(summed, want_summed, where + " residual");
        }
    }

    // The finite check of a forward's K and V: rows `stride` apart, values of every class
    // (NaN, ±inf, the largest finite, denormals, zeros) scattered in the rows and in the gaps
    // between them, which do not count; pieces of 1, 7 and 4,096 values.
    void count_nonfinite_counts_the_rows_only() {
        std::mt19937 rng(17);
        const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                  -std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::denorm_min(),
                                  -0.0f};
        CpuBackend cpu(2);
        for (const auto& [rows, width, stride] : {std::tuple<size_t, size_t, size_t>{1, 1, 1},
                                                  {3, 40, 48},
                                                  {5, 129, 144},
                                                  {2, 5000, 5000}}) {
            std::vector<float> x = random_floats(rows * stride, rng);
            for (int i = 0; i < 60; ++i)
                x[rng() % x.size()] = specials[rng() % std::size(specials)];
            size_t want = 0;
            for (size_t r = 0; r < rows; ++r)
                for (size_t i = 0; i < width; ++i) want += std::isfinite(x[r * stride + i]) ? 0 : 1;
            const QString where =
                QString("%1 rows of %2, %3 apart").arg(rows).arg(width).arg(stride);
            QVERIFY2(want > 0 || rows == 1, qPrintable(where));
            for (size_t piece : {size_t(1), size_t(7), size_t(4096)}) {
                const kern::CountNonfinite body =
                    kern::count_nonfinite_body(x.data(), rows, width, stride, nullptr, piece);
                std::vector<uint32_t> counts(body.pieces(), 99);
                kern::host_launch(kern::count_nonfinite_body(x.data(), rows, width, stride,
                                                             counts.data(), piece));
                size_t got = 0;
                for (uint32_t c : counts) got += c;
                QVERIFY2(got == want, qPrintable(where + QString(", pieces of %1").arg(piece)));
            }
            QVERIFY2(cpu.count_nonfinite(x.data(), rows, width, stride) == want, qPrintable(where));
        }
    }

    void swiglu_matches_swiglu() {
        std::mt19937 rng(5);
        for (size_t count : {size_t(1), size_t(31), size_t(1000)}) {
            const std::vector<float> gate = random_floats(count, rng, 4.0f);
            const std::vector<float> up = random_floats(count, rng);
            std::vector<float> got = gate, want(count);
            kern::host_launch(kern::swiglu_into_body(got.data(), up.data(), count));
            swiglu(gate.data(), up.data(), int(count), want.data());
            std::vector<double> ref(count);
            for (size_t i = 0; i < count; ++i)
                ref[i] = double(gate[i]) / (1.0 + std::exp(-double(gate[i]))) * double(up[i]);
            const QString where = QString("count %1").arg(count);
            EXPECT_SAME_BITS(got, want, where);
            EXPECT_NMSE(got, ref, 1e-12, where);
        }
    }

    // Both layouts, positions far apart: rope_apply's bits per head, and float64 RoPE.
    void rope_rows_matches_rope_apply() {
        std::mt19937 rng(6);
        const float theta = 10000.0f;
        struct Shape {
            int rows, heads, head_dim;
        };
        for (const Shape sh :
             {Shape{1, 1, 2}, Shape{3, 5, 12}, Shape{7, 8, 64}, Shape{2, 3, 128}}) {
            for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::HalfSplit}) {
                const int width = sh.heads * sh.head_dim, half = sh.head_dim / 2;
                const std::vector<float> x = random_floats(size_t(sh.rows) * width, rng);
                std::vector<int32_t> positions;
                for (int r = 0; r < sh.rows; ++r) positions.push_back(r * 1237 + r % 2);
                std::vector<float> cos_tab(size_t(sh.rows) * half), sin_tab(cos_tab.size());
                for (int r = 0; r < sh.rows; ++r)
                    rope_cos_sin(positions[size_t(r)], sh.head_dim, theta,
                                 &cos_tab[size_t(r) * half], &sin_tab[size_t(r) * half]);
                std::vector<float> got = x, want = x;
                kern::host_launch(kern::rope_rows_body(got.data(), sh.rows, sh.heads, sh.head_dim,
                                                       cos_tab.data(), sin_tab.data(), layout));
                std::vector<double> ref(x.begin(), x.end());
                for (int r = 0; r < sh.rows; ++r)
                    for (int h = 0; h < sh.heads; ++h) {
                        const size_t at = size_t(r) * width + size_t(h) * sh.head_dim;
                        rope_apply(&want[at], sh.head_dim, &cos_tab[size_t(r) * half],
                                   &sin_tab[size_t(r) * half], layout);
                        test::reference_rope(&ref[at], sh.head_dim, positions[size_t(r)], theta,
                                             layout);
                    }
                const QString where = QString("%1x%2x%3 layout %4")
                                          .arg(sh.rows)
                                          .arg(sh.heads)
                                          .arg(sh.head_dim)
                                          .arg(int(layout));
                EXPECT_SAME_BITS(got, want, where);
                EXPECT_NMSE(got, ref, 1e-10, where);
            }
        }
    }

    // Every storage type: the bits of kv_encode_row + kv_decode_row over whole rows (what the
    // engine's stored_values computes), and the type's rounding error against the input.
    void kv_round_trip_matches_the_row_codec() {
        std::mt19937 rng(7);
        const std::pair<KvType, double> types[] = {{KvType::F32, 0.0},
                                                   {KvType::F16, 1e-6},
                                                   {KvType::BF16, 1e-5},
                                                   {KvType::Int8, 1e-3},
                                                   {KvType::Fp8E4M3, 1e-2}};
        struct Shape {
            int n, kv_dim, groups;
        };
        for (const auto& [type, tolerance] : types) {
            for (const Shape sh : {Shape{1, 64, 1}, Shape{5, 96, 3}, Shape{3, 256, 8},
                                   Shape{2, 40, 5}, Shape{1, 512, 1}}) {
                std::vector<float> x = random_floats(size_t(sh.n) * sh.kv_dim, rng);
                x[0] = 9.0f;  // an outlier sets its group's scale
                std::vector<float> got = x, want(x.size());
                kern::host_launch(
                    kern::kv_round_trip_rows_body(type, got.data(), sh.n, sh.kv_dim, sh.groups));
                std::vector<uint8_t> bytes;
                std::vector<float> scales;
                test::store_rows(type, x, sh.kv_dim, sh.groups, bytes, scales, want);
                const QString where = QString("type %1, %2 rows of %3 in %4 groups")
                                          .arg(int(type))
                                          .arg(sh.n)
                                          .arg(sh.kv_dim)
                                          .arg(sh.groups);
                EXPECT_SAME_BITS(got, want, where);
                EXPECT_NMSE(got, std::vector<double>(x.begin(), x.end()), tolerance, where);
            }
        }
        std::vector<float> wide(1026);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kern::kv_round_trip_rows_body(
                                                            KvType::Int8, wide.data(), 1, 1026, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kern::kv_round_trip_rows_body(
                                                            KvType::Int8, wide.data(), 1, 96, 5));
    }

    // Against float64 attention (weights, outputs, mass), and against the scalar CPU attention
    // kernel run one query and KV head at a time over the rows that query sees, with the mass
    // summed as Transformer::forward sums it (queries in order per head, then heads): to
    // rounding, since the bodies sum in chunks of rows (kernels/bodies/attention.h), the CPU
    // kernel in eight lanes.
    void attention_matches_the_scalar_cpu_kernel() {
        const cpu::AttentionKernel& kernel = scalar_attention_kernel();
        uint32_t seed = 11;
        for (const test::AttentionShape& s : test::attention_shapes()) {
            const test::AttentionInputs in = test::make_attention_inputs(s, seed++);
            const int total = s.rows + s.n, hd = s.head_dim, group = s.n_heads / s.n_kv_heads;
            std::vector<float> out(size_t(s.n) * in.q_dim(), kSentinel);
            std::vector<float> mass(size_t(total), kSentinel);
            std::vector<float> scratch(
                cuda::attention_scratch_floats(s.rows, s.n, s.n_heads, s.head_dim), kSentinel);
            const cuda::DeviceAttention a = in.view(out.data(), mass.data(), scratch.data());
            kern::attention_passes(a, [](const auto& body) { kern::host_launch(body); });
            const QString where = QString::fromStdString(test::shape_tag(s));

            const test::AttentionReference ref = reference_attention(in);
            EXPECT_NMSE(out, ref.out, 1e-10, where + " out");
            if (s.mass) EXPECT_NMSE(mass, ref.mass, 1e-10, where + " mass");
            if (!s.mass)
                for (float m : mass) QCOMPARE(m, kSentinel);

            // The CPU kernel over decoded rows.
            const std::vector<float> k = all_rows(in, false), v = all_rows(in, true);
            std::vector<float> cpu_out(out.size(), kSentinel);
            std::vector<float> body_weights, cpu_weights;  // every (query, head, row seen)
            std::vector<std::vector<float>> head_mass(size_t(s.n_heads),
                                                      std::vector<float>(size_t(total), 0.0f));
            for (int i = 0; i < s.n; ++i) {
                const std::vector<int> seen = seen_rows(in, i);
                for (int g = 0; g < s.n_kv_heads; ++g) {
                    std::vector<const float*> k_rows, v_rows;
                    for (int j : seen) {
                        k_rows.push_back(&k[size_t(j) * in.kv_dim() + size_t(g) * hd]);
                        v_rows.push_back(&v[size_t(j) * in.kv_dim() + size_t(g) * hd]);
                    }
                    std::vector<float> p(seen.size() * size_t(group));
                    std::vector<float> q_t(size_t(cpu::attention_lanes(group)) * hd);
                    cpu::AttentionBlock b;
                    b.q = &in.q[size_t(i) * in.q_dim() + size_t(g) * group * hd];
                    b.q_stride = size_t(in.q_dim());
                    b.queries = 1;
                    b.group = group;
                    b.hd = hd;
                    b.first_len = int(seen.size());
                    b.k_rows = k_rows.data();
                    b.v_rows = v_rows.data();
                    b.scale = a.scale;
                    b.out = &cpu_out[size_t(i) * in.q_dim() + size_t(g) * group * hd];
                    b.out_stride = size_t(in.q_dim());
                    b.p = p.data();
                    b.p_stride = seen.size();
                    b.q_t = q_t.data();
                    kernel.fn(b);
                    for (int x = 0; x < group; ++x) {
                        const int h = g * group + x;
                        const float* weights = kern::AttentionView{a}.weights(i, h);
                        for (size_t t = 0; t < seen.size(); ++t) {
                            const float want = p[size_t(x) * seen.size() + t];
                            body_weights.push_back(weights[seen[t]]);
                            cpu_weights.push_back(want);
                            head_mass[size_t(h)][size_t(seen[t])] += want;
                        }
                    }
                }
            }
            EXPECT_NMSE(body_weights, cpu_weights, 1e-12,
                        where + " weights against the CPU kernel");
            EXPECT_NMSE(out, cpu_out, 1e-12, where + " out against the CPU kernel");
            if (s.mass) {
                std::vector<float> cpu_mass(size_t(total), 0.0f);
                for (int h = 0; h < s.n_heads; ++h)
                    for (int j = 0; j < total; ++j)
                        cpu_mass[size_t(j)] += head_mass[size_t(h)][size_t(j)];
                EXPECT_NMSE(mass, cpu_mass, 1e-12, where + " mass against the CPU order");
            }
        }
    }

    // A window that reaches every row changes no bit: the same attention as no window.
    void a_window_that_cuts_nothing_changes_nothing() {
        test::AttentionShape s = test::attention_shapes()[3];
        QVERIFY(s.window > s.rows + 2 * s.n);
        const test::AttentionInputs in = test::make_attention_inputs(s, 99);
        auto run = [&](int window) {
            std::vector<float> out(size_t(s.n) * in.q_dim()), mass(size_t(s.rows + s.n));
            std::vector<float> scratch(
                cuda::attention_scratch_floats(s.rows, s.n, s.n_heads, s.head_dim));
            cuda::DeviceAttention a = in.view(out.data(), mass.data(), scratch.data());
            a.window = window;
            kern::attention_passes(a, [](const auto& body) { kern::host_launch(body); });
            out.insert(out.end(), mass.begin(), mass.end());
            return out;
        };
        EXPECT_SAME_BITS(run(s.window), run(0), "out and mass");
    }

    void attention_refuses_bad_shapes() {
        cuda::DeviceAttention a;
        a.n = 1;
        a.n_heads = 6;
        a.n_kv_heads = 4;
        a.head_dim = 8;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 kern::attention_passes(a, [](const auto&) {}));
        a.n_kv_heads = 3;
        a.window = 4;  // a window without positions
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 kern::attention_passes(a, [](const auto&) {}));
    }
};

QTEST_APPLESS_MAIN(TestForwardBodies)
#include "test_forward_bodies.moc"
