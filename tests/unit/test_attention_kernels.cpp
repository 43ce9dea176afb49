// core/backend/cpu/attention_kernels.h: every attention kernel this CPU runs, against float64
// attention written plainly here (scores, softmax and weighted values), bit for bit against
// one plain float loop per head for the weighted values (the order the kernels promise), and
// bit for bit against itself run one query at a time (a block's numbers do not depend on the
// block). Shapes that are not multiples of the lanes, the value chunks or the stream tiles.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/backend/cpu/attention_kernels.h"

using namespace kvw;
using cpu::AttentionBlock;
using cpu::AttentionKernel;

namespace {

struct Case {
    int queries, group, hd, first_len, kv_dim;
    float q_scale = 1.0f;  // large: scores far apart, so that some weights underflow to 0
};

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {1, 8, 64, 33, 256},  {1, 1, 4, 17, 4},           {5, 1, 4, 9, 8},  {3, 3, 12, 7, 40},
        {4, 8, 64, 130, 512}, {2, 5, 40, 13, 200},        {33, 1, 8, 1, 8}, {1, 2, 36, 4, 72},
        {7, 4, 20, 2, 80},    {2, 8, 64, 60, 512, 40.0f},
    };
    return all;
}

// A block's inputs, with the strides the engine uses (rows kv_dim apart, the head at an offset)
// and sentinels around the outputs.
struct Data {
    Case c;
    std::vector<float> q, k, v, out, p, q_t;
    std::vector<const float*> k_rows, v_rows;
    size_t out_stride = 0, p_stride = 0;

    int rows() const { return c.first_len + c.queries - 1; }
    int len(int query) const { return c.first_len + query; }
    float qv(int i, int h, int d) const { return q[size_t(i) * c.group * c.hd + h * c.hd + d]; }
    float outv(int i, int h, int d) const { return out[i * out_stride + h * c.hd + d]; }
    float pv(int i, int h, int j) const {
        return p[size_t(i * c.group + h) * p_stride + size_t(j)];
    }

    AttentionBlock block(float scale) {
        AttentionBlock b;
        b.q = q.data();
        b.q_stride = size_t(c.group) * c.hd;
        b.queries = c.queries;
        b.group = c.group;
        b.hd = c.hd;
        b.first_len = c.first_len;
        b.k_rows = k_rows.data();
        b.v_rows = v_rows.data();
        b.scale = scale;
        b.out = out.data();
        b.out_stride = out_stride;
        b.p = p.data();
        b.p_stride = p_stride;
        b.q_t = q_t.data();
        return b;
    }
};

constexpr float kSentinel = 12345.0f;

Data make(const Case& c, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Data d;
    d.c = c;
    for (int i = 0; i < c.queries * c.group * c.hd; ++i) d.q.push_back(normal(rng) * c.q_scale);
    const int rows = c.first_len + c.queries - 1;
    for (int i = 0; i < rows * c.kv_dim; ++i) d.k.push_back(normal(rng));
    for (int i = 0; i < rows * c.kv_dim; ++i) d.v.push_back(normal(rng));
    const int offset = c.kv_dim - c.hd;  // the head sits at an offset inside each row
    for (int j = 0; j < rows; ++j) {
        d.k_rows.push_back(&d.k[size_t(j) * c.kv_dim + offset]);
        d.v_rows.push_back(&d.v[size_t(j) * c.kv_dim + offset]);
    }
    d.out_stride = size_t(c.group) * c.hd + 3;
    d.out.assign(d.out_stride * c.queries, kSentinel);
    d.p_stride = size_t(rows) + 5;
    d.p.assign(d.p_stride * c.queries * c.group, kSentinel);
    d.q_t.assign(size_t(cpu::attention_lanes(c.queries * c.group)) * size_t(c.hd), kSentinel);
    return d;
}

// One plain multiply-add, rounded as the kernel promises.
float madd(bool fused, float a, float b, float c) { return fused ? std::fma(a, b, c) : a * b + c; }

}  // namespace

class TestAttentionKernels : public QObject {
    Q_OBJECT

    static std::vector<const AttentionKernel*> runnable() {
        std::vector<const AttentionKernel*> out;
        for (const AttentionKernel& k : cpu::attention_kernels())
            if (k.cpu_has()) out.push_back(&k);
        return out;
    }

private slots:
    void the_scalar_kernel_is_always_there() {
        QCOMPARE(cpu::attention_kernels().back().name, std::string_view("scalar"));
        QVERIFY(cpu::best_attention_kernel().cpu_has());
    }

    void weights_and_outputs_match_float64_attention() {
        for (const AttentionKernel* kernel : runnable()) {
            for (const Case& c : cases()) {
                Data d = make(c, uint32_t(c.queries * 7919 + c.hd * 31 + c.first_len));
                const float scale = 1.0f / std::sqrt(float(c.hd));
                kernel->fn(d.block(scale));
                const QString where =
                    QString("%1 kernel, queries %2 group %3 hd %4 rows %5")
                        .arg(QString::fromUtf8(kernel->name.data(), qsizetype(kernel->name.size())))
                        .arg(c.queries)
                        .arg(c.group)
                        .arg(c.hd)
                        .arg(c.first_len);
                for (int i = 0; i < c.queries; ++i) {
                    const int len = d.len(i);
                    for (int h = 0; h < c.group; ++h) {
                        std::vector<double> s(static_cast<size_t>(len));
                        double max = -std::numeric_limits<double>::infinity();
                        for (int j = 0; j < len; ++j) {
                            double dot = 0.0;
                            for (int x = 0; x < c.hd; ++x)
                                dot += double(d.qv(i, h, x)) * double(d.k_rows[size_t(j)][x]);
                            s[size_t(j)] = dot * double(scale);
                            max = std::max(max, s[size_t(j)]);
                        }
                        double sum = 0.0;
                        for (double& e : s) sum += (e = std::exp(e - max));
                        for (int j = 0; j < len; ++j) {
                            const double want = s[size_t(j)] / sum;
                            const double got = d.pv(i, h, j);
                            if (std::abs(got - want) > 1e-4 * want + 1e-7)
                                QFAIL(qPrintable(where + QString(": p[%1] = %2, float64 %3")
                                                             .arg(j)
                                                             .arg(got, 0, 'g', 9)
                                                             .arg(want, 0, 'g', 9)));
                        }
                        for (size_t j = size_t(len); j < d.p_stride; ++j)  // nothing past its rows
                            QCOMPARE(d.pv(i, h, int(j)), kSentinel);
                        for (int x = 0; x < c.hd; ++x) {
                            double want = 0.0, magnitude = 0.0;
                            for (int j = 0; j < len; ++j) {
                                const double term =
                                    s[size_t(j)] / sum * double(d.v_rows[size_t(j)][x]);
                                want += term;
                                magnitude += std::abs(term);
                            }
                            const double got = d.outv(i, h, x);
                            if (std::abs(got - want) > 1e-4 * magnitude + 1e-6)
                                QFAIL(
                                    qPrintable(where + QString(": out[%1][%2][%3] = %4, float64 %5")
                                                           .arg(i)
                                                           .arg(h)
                                                           .arg(x)
                                                           .arg(got, 0, 'g', 9)
                                                           .arg(want, 0, 'g', 9)));
                        }
                    }
                    for (size_t x = size_t(c.group) * c.hd; x < d.out_stride; ++x)
                        QCOMPARE(d.out[i * d.out_stride + x], kSentinel);  // between queries
                }
            }
        }
    }

    // The weighted values, from the kernel's own weights, equal a plain loop per head and
    // value: rows in increasing order, one (fused or not) multiply-add per row.
    void weighted_values_follow_the_promised_order() {
        for (const AttentionKernel* kernel : runnable()) {
            for (const Case& c : cases()) {
                Data d = make(c, uint32_t(c.group * 104729 + c.first_len));
                kernel->fn(d.block(0.25f));
                for (int i = 0; i < c.queries; ++i)
                    for (int h = 0; h < c.group; ++h)
                        for (int x = 0; x < c.hd; ++x) {
                            float plain = 0.0f;
                            for (int j = 0; j < d.len(i); ++j)
                                plain = madd(kernel->fused, d.pv(i, h, j), d.v_rows[size_t(j)][x],
                                             plain);
                            QCOMPARE(std::bit_cast<uint32_t>(d.outv(i, h, x)),
                                     std::bit_cast<uint32_t>(plain));
                        }
            }
        }
    }

    // A block of queries gives the bits of each query run alone with its own rows (what a
    // prefill followed by decode does).
    void a_block_equals_its_queries_one_at_a_time() {
        for (const AttentionKernel* kernel : runnable()) {
            for (const Case& c : cases()) {
                Data whole = make(c, 77u + uint32_t(c.hd));
                kernel->fn(whole.block(0.3f));
                for (int i = 0; i < c.queries; ++i) {
                    Case one = c;
                    one.queries = 1;
                    one.first_len = c.first_len + i;
                    Data alone = make(one, 1u);
                    alone.q.assign(whole.q.begin() + ptrdiff_t(i) * c.group * c.hd,
                                   whole.q.begin() + ptrdiff_t(i + 1) * c.group * c.hd);
                    alone.k_rows.assign(whole.k_rows.begin(), whole.k_rows.begin() + one.first_len);
                    alone.v_rows.assign(whole.v_rows.begin(), whole.v_rows.begin() + one.first_len);
                    kernel->fn(alone.block(0.3f));
                    for (int h = 0; h < c.group; ++h) {
                        for (int x = 0; x < c.hd; ++x)
                            QCOMPARE(std::bit_cast<uint32_t>(alone.outv(0, h, x)),
                                     std::bit_cast<uint32_t>(whole.outv(i, h, x)));
                        for (int j = 0; j < one.first_len; ++j)
                            QCOMPARE(std::bit_cast<uint32_t>(alone.pv(0, h, j)),
                                     std::bit_cast<uint32_t>(whole.pv(i, h, j)));
                    }
                }
            }
        }
    }

    void a_nan_query_gives_nan_not_a_finite_answer() {
        for (const AttentionKernel* kernel : runnable()) {
            Data d = make({2, 2, 12, 9, 24}, 5u);
            d.q[3] = std::numeric_limits<float>::quiet_NaN();  // query 0, head 0
            kernel->fn(d.block(0.5f));
            for (int x = 0; x < 12; ++x) QVERIFY(std::isnan(d.outv(0, 0, x)));
            for (int x = 0; x < 12; ++x) QVERIFY(std::isfinite(d.outv(1, 1, x)));
        }
    }
};

QTEST_APPLESS_MAIN(TestAttentionKernels)
#include "test_attention_kernels.moc"
