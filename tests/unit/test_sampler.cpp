// Sampling: greedy is the argmax, temperature draws follow the softmax, top-k / top-p cut the
// tail, and a seed fixes the sequence.
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/engine/sampler.h"

using namespace kvw;

namespace {

std::vector<float> random_logits(std::mt19937_64& rng, int n) {
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::vector<float> l(static_cast<size_t>(n));
    for (float& x : l) x = normal(rng);
    return l;
}

int32_t argmax(const std::vector<float>& l) {
    int32_t best = 0;
    for (int32_t i = 1; i < int32_t(l.size()); ++i)
        if (l[i] > l[best]) best = i;
    return best;
}

std::vector<double> frequencies(Sampler& s, const std::vector<float>& logits, int draws) {
    std::vector<double> f(logits.size(), 0.0);
    for (int i = 0; i < draws; ++i) f[size_t(s.sample(logits))] += 1.0 / draws;
    return f;
}

// |observed - p| within five standard errors of a binomial proportion.
bool close_to(double observed, double p, int draws) {
    return std::fabs(observed - p) <= 5.0 * std::sqrt(p * (1.0 - p) / draws) + 1e-9;
}

}  // namespace

class TestSampler : public QObject {
    Q_OBJECT

private slots:
    void greedy_is_argmax() {
        std::mt19937_64 rng(1);
        Sampler s(SamplingParams{});
        for (int trial = 0; trial < 50; ++trial) {
            const std::vector<float> l = random_logits(rng, 1000);
            QCOMPARE(s.sample(l), argmax(l));
        }
        QCOMPARE(s.sample(std::vector<float>{1.0f, 5.0f, 2.0f, 5.0f}), 1);  // ties: lowest id
    }

    void top_k_one_is_greedy() {
        std::mt19937_64 rng(2);
        for (int trial = 0; trial < 50; ++trial) {
            Sampler s(SamplingParams{1.5f, 1, 1.0f, uint64_t(trial)});
            const std::vector<float> l = random_logits(rng, 500);
            QCOMPARE(s.sample(l), argmax(l));
        }
    }

    void same_seed_same_sequence() {
        std::mt19937_64 rng(3);
        const std::vector<float> l = random_logits(rng, 200);
        const SamplingParams params{1.0f, 40, 0.95f, 1234};
        Sampler a(params), b(params), other(SamplingParams{1.0f, 40, 0.95f, 1235});
        std::vector<int32_t> sa, sb, so;
        for (int i = 0; i < 200; ++i) {
            sa.push_back(a.sample(l));
            sb.push_back(b.sample(l));
            so.push_back(other.sample(l));
        }
        QCOMPARE(sa, sb);
        QVERIFY(sa != so);
    }

    void temperature_draws_follow_softmax() {
        const std::vector<float> logits{1.0f, 2.0f, 0.5f, -1.0f, 1.7f};
        const double temperature = 0.7;
        std::vector<double> p(logits.size());
        double z = 0.0;
        for (size_t i = 0; i < logits.size(); ++i) z += p[i] = std::exp(logits[i] / temperature);
        for (double& x : p) x /= z;

        constexpr int kDraws = 200000;
        Sampler s(SamplingParams{float(temperature), 0, 1.0f, 42});
        const std::vector<double> f = frequencies(s, logits, kDraws);
        for (size_t i = 0; i < p.size(); ++i)
            QVERIFY2(close_to(f[i], p[i], kDraws),
                     qPrintable(QString("token %1: %2 vs %3").arg(i).arg(f[i]).arg(p[i])));
    }

    void top_p_excludes_the_tail() {
        // Probabilities 0.5, 0.3, 0.15, 0.05 at temperature 1: top-p 0.7 keeps {0, 1}
        // (0.5 < 0.7 <= 0.8), renormalised to 0.625 / 0.375.
        const std::vector<float> logits{std::log(0.3f), std::log(0.05f), std::log(0.5f),
                                        std::log(0.15f)};
        constexpr int kDraws = 100000;
        Sampler s(SamplingParams{1.0f, 0, 0.7f, 7});
        const std::vector<double> f = frequencies(s, logits, kDraws);
        QCOMPARE(f[1], 0.0);
        QCOMPARE(f[3], 0.0);
        QVERIFY(close_to(f[2], 0.625, kDraws));
        QVERIFY(close_to(f[0], 0.375, kDraws));
    }

    void top_k_keeps_the_k_most_likely() {
        const std::vector<float> logits{0.1f, 3.0f, 0.2f, 2.5f, 0.0f, 2.9f};
        Sampler s(SamplingParams{2.0f, 3, 1.0f, 9});
        const std::vector<double> f = frequencies(s, logits, 20000);
        for (size_t i : {0, 2, 4}) QCOMPARE(f[i], 0.0);
        for (size_t i : {1, 3, 5}) QVERIFY(f[i] > 0.2);
    }

    // A temperature is a number from 0 to kMaxTemperature: 1e39 arrives as infinity in a
    // float, which drew uniformly and was reported as "inf" (issue 26 item 8).
    void temperatures_beyond_the_bound_are_refused() {
        for (const float t : {std::numeric_limits<float>::infinity(), std::nanf(""),
                              kMaxTemperature * 1.01f, -0.5f})
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Sampler(SamplingParams{t, 0, 1.0f, 1}));
        Sampler at_the_bound(SamplingParams{kMaxTemperature, 0, 1.0f, 1});
        QCOMPARE(at_the_bound.params().temperature, kMaxTemperature);
    }
};

QTEST_APPLESS_MAIN(TestSampler)
#include "test_sampler.moc"
