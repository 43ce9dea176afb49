// core/math/attention_rows.h: a query group's scores and weighted values against float64 sums
// written plainly here, and bit for bit against one plain float loop per head (the order the
// engine promises), for group sizes, head widths and row counts that are not multiples of the
// lane width, the row block or the register chunk.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/math/attention_rows.h"

using namespace kvw;

namespace {

struct Case {
    int group, hd, rows, kv_dim;
};

struct Data {
    std::vector<float> q, k, v, p;  // q [group][hd]; k, v [rows][kv_dim]; p [group][rows]
    std::vector<const float*> k_rows, v_rows;
};

Data make(const Case& c, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    Data d;
    for (int i = 0; i < c.group * c.hd; ++i) d.q.push_back(normal(rng));
    for (int i = 0; i < c.rows * c.kv_dim; ++i) d.k.push_back(normal(rng));
    for (int i = 0; i < c.rows * c.kv_dim; ++i) d.v.push_back(normal(rng));
    for (int i = 0; i < c.group * c.rows; ++i) d.p.push_back(unit(rng));
    // The head's values sit at an offset inside each row, as a K/V head does in the cache.
    const int offset = c.kv_dim - c.hd;
    for (int j = 0; j < c.rows; ++j) {
        d.k_rows.push_back(&d.k[size_t(j) * c.kv_dim + offset]);
        d.v_rows.push_back(&d.v[size_t(j) * c.kv_dim + offset]);
    }
    return d;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {1, 8, 1, 8},    {3, 12, 7, 20}, {8, 64, 33, 256},
        {5, 40, 13, 41}, {4, 36, 4, 36}, {8, 96, 130, 100},
    };
    return all;
}

}  // namespace

class TestAttentionRows : public QObject {
    Q_OBJECT
private slots:
    void scores_are_each_heads_plain_dot_product() {
        const float scale = 0.3f;
        for (const Case& c : cases()) {
            const Data d = make(c, uint32_t(c.group * 1000 + c.rows));
            const int lanes = attention_lanes(c.group);
            QVERIFY(lanes % kAttentionLanes == 0 && lanes >= c.group);
            std::vector<float> q_t(size_t(c.hd) * lanes, -1.0f);
            attention_transpose_queries(d.q.data(), c.group, c.hd, lanes, q_t.data());
            const int stride = c.rows + 3;  // a stride wider than the rows, as the engine's
            std::vector<float> scores(size_t(c.group) * stride, 99.0f);
            attention_scores(q_t.data(), lanes, c.group, d.k_rows.data(), c.rows, c.hd, scale,
                             scores.data(), stride);
            for (int h = 0; h < c.group; ++h) {
                for (int j = 0; j < c.rows; ++j) {
                    float plain = 0.0f;
                    double exact = 0.0;
                    for (int x = 0; x < c.hd; ++x) {
                        plain += d.q[size_t(h) * c.hd + x] * d.k_rows[size_t(j)][x];
                        exact += double(d.q[size_t(h) * c.hd + x]) * d.k_rows[size_t(j)][x];
                    }
                    const float got = scores[size_t(h) * stride + j];
                    QCOMPARE(std::bit_cast<uint32_t>(got),
                             std::bit_cast<uint32_t>(plain * scale));  // same terms, order
                    QVERIFY(std::abs(double(got) - exact * scale) <= 1e-5 * c.hd);
                }
                for (int j = c.rows; j < stride; ++j)  // nothing written past the rows
                    QCOMPARE(scores[size_t(h) * stride + j], 99.0f);
            }
        }
    }

    void weighted_values_are_each_heads_plain_sum() {
        for (const Case& c : cases()) {
            const Data d = make(c, uint32_t(c.hd * 1000 + c.rows));
            std::vector<float> out(size_t(c.group) * c.hd, 7.0f);
            attention_weighted_values(d.p.data(), c.rows, c.group, d.v_rows.data(), c.rows, c.hd,
                                      out.data());
            for (int h = 0; h < c.group; ++h) {
                for (int x = 0; x < c.hd; ++x) {
                    float plain = 0.0f;
                    double exact = 0.0;
                    for (int j = 0; j < c.rows; ++j) {
                        const float pj = d.p[size_t(h) * c.rows + j];
                        plain += pj * d.v_rows[size_t(j)][x];
                        exact += double(pj) * d.v_rows[size_t(j)][x];
                    }
                    const float got = out[size_t(h) * c.hd + x];
                    QCOMPARE(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(plain));
                    QVERIFY(std::abs(double(got) - exact) <= 1e-5 * c.rows);
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestAttentionRows)
#include "test_attention_rows.moc"
