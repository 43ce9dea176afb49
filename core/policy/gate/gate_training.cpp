#include "core/policy/gate/gate_training.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "core/policy/policy_error.h"

namespace kvw {

namespace {

// splitmix64: the initial weights and the epochs' orders, the same on every platform.
struct SplitMix {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

struct Samples {
    std::vector<float> x;  // [n][dim]
    std::vector<float> y;  // [n]: log4(1 + lifespan)
    size_t n() const { return y.size(); }
};

// One dense layer's gradient and Adam moments.
struct DenseState {
    std::vector<float> dw, db, mw, vw, mb, vb;
    explicit DenseState(const GateDense& d)
        : dw(d.weight.size()),
          db(d.bias.size()),
          mw(dw.size()),
          vw(dw.size()),
          mb(db.size()),
          vb(db.size()) {}
};

void adam(std::vector<float>& p, std::vector<float>& g, std::vector<float>& m,
          std::vector<float>& v, float lr, double step) {
    constexpr float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    const float c1 = float(1.0 - std::pow(double(b1), step));
    const float c2 = float(1.0 - std::pow(double(b2), step));
    for (size_t i = 0; i < p.size(); ++i) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        p[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
        g[i] = 0.0f;
    }
}

// One layer's MLP while it trains: forward with every activation kept, backward into the
// gradients, an Adam step per batch.
class MlpTrainer {
public:
    MlpTrainer(const GateShape& shape, float y_mean, SplitMix& rng) {
        for (int i = 0; i < shape.depth; ++i) {
            GateDense d;
            d.in = shape.fc_in(i);
            d.out = shape.fc_out(i);
            // He-uniform for the ReLU layers; the output layer starts small at the mean, so
            // training starts from the constant predictor.
            const bool last = i == shape.depth - 1;
            const double limit = std::sqrt((last ? 0.01 : 6.0) / double(d.in));
            d.weight.resize(size_t(d.in) * size_t(d.out));
            for (float& w : d.weight) w = float((2.0 * rng.uniform() - 1.0) * limit);
            d.bias.assign(size_t(d.out), last ? y_mean : 0.0f);
            states_.emplace_back(d);
            fcs_.push_back(std::move(d));
            acts_.emplace_back(size_t(shape.fc_in(i)));
        }
        acts_.emplace_back(1);
    }

    float forward(const float* x) {
        acts_[0].assign(x, x + fcs_[0].in);
        for (size_t i = 0; i < fcs_.size(); ++i)
            gate_dense_forward(fcs_[i], acts_[i].data(), acts_[i + 1].data(), i + 1 < fcs_.size());
        return acts_.back()[0];
    }

    // After forward(): adds the gradient of scale · (prediction − y)² .
    void backward(float y, float scale) {
        std::vector<float> delta = {2.0f * scale * (acts_.back()[0] - y)}, prev;
        for (size_t i = fcs_.size(); i-- > 0;) {
            const GateDense& d = fcs_[i];
            DenseState& s = states_[i];
            const float* a = acts_[i].data();
            for (int o = 0; o < d.out; ++o) {
                const float g = delta[size_t(o)];
                s.db[size_t(o)] += g;
                float* dw = s.dw.data() + size_t(o) * size_t(d.in);
                for (int j = 0; j < d.in; ++j) dw[j] += g * a[j];
            }
            if (i == 0) break;
            prev.assign(size_t(d.in), 0.0f);
            for (int o = 0; o < d.out; ++o) {
                const float g = delta[size_t(o)];
                const float* w = d.weight.data() + size_t(o) * size_t(d.in);
                for (int j = 0; j < d.in; ++j) prev[size_t(j)] += w[j] * g;
            }
            for (int j = 0; j < d.in; ++j)
                if (a[j] <= 0.0f) prev[size_t(j)] = 0.0f;  // ReLU: a == 0 where z <= 0
            delta.swap(prev);
        }
    }

    void step(float lr) {
        ++steps_;
        for (size_t i = 0; i < fcs_.size(); ++i) {
            DenseState& s = states_[i];
            adam(fcs_[i].weight, s.dw, s.mw, s.vw, lr, double(steps_));
            adam(fcs_[i].bias, s.db, s.mb, s.vb, lr, double(steps_));
        }
    }

    std::vector<GateDense>& layers() { return fcs_; }

private:
    std::vector<GateDense> fcs_;
    std::vector<DenseState> states_;
    std::vector<std::vector<float>> acts_;  // acts_[i]: input of fc i; back(): the output
    long steps_ = 0;
};

void check_agree(std::span<const LifespanRecords> data, std::span<const std::string> names) {
    if (data.empty()) throw PolicyInputError("train-gate: no recorded lifespans given");
    if (names.size() != data.size())
        throw PolicyInputError("train-gate: one name per file of recorded lifespans");
    for (size_t f = 1; f < data.size(); ++f)
        if (data[f].n_layers != data[0].n_layers || data[f].key_dim != data[0].key_dim ||
            data[f].key_kind != data[0].key_kind)
            throw PolicyInputError(
                "train-gate: " + names[f] + " has " + std::to_string(data[f].n_layers) +
                " layers of " + gate_key_kind_name(data[f].key_kind) + " keys of width " +
                std::to_string(data[f].key_dim) + ", " + names[0] + " has " +
                std::to_string(data[0].n_layers) + " of " + gate_key_kind_name(data[0].key_kind) +
                " of width " + std::to_string(data[0].key_dim));
}

// Layer l's records of every file, split into training and held-out (the last fraction of
// each file).
void split_layer(std::span<const LifespanRecords> data, int l, double held_out, Samples& train,
                 Samples& test) {
    const size_t dim = size_t(data[0].key_dim);
    for (const LifespanRecords& r : data) {
        const LifespanRecords::Layer& layer = r.layers[size_t(l)];
        const size_t n = layer.count();
        const size_t n_test = size_t(std::floor(double(n) * held_out + 0.5));
        for (size_t i = 0; i < n; ++i) {
            Samples& s = i < n - n_test ? train : test;
            s.x.insert(s.x.end(), layer.keys.begin() + std::ptrdiff_t(i * dim),
                       layer.keys.begin() + std::ptrdiff_t((i + 1) * dim));
            s.y.push_back(float(lifespan_target(layer.lifespans[i])));
        }
    }
}

// Folds x' = (x − mean) / sd into the first layer: W' = W / sd, b' = b − W' · mean.
void fold_standardisation(GateDense& first, const std::vector<double>& mean,
                          const std::vector<double>& sd) {
    for (int o = 0; o < first.out; ++o) {
        float* w = first.weight.data() + size_t(o) * size_t(first.in);
        double shift = 0.0;
        for (int j = 0; j < first.in; ++j) {
            const double scaled = double(w[j]) / sd[size_t(j)];
            shift += scaled * mean[size_t(j)];
            w[j] = float(scaled);
        }
        first.bias[size_t(o)] = float(double(first.bias[size_t(o)]) - shift);
    }
}

// predict(key) for every sample, against its target.
template <typename Predict>
double mean_squared_error(const Samples& s, size_t dim, Predict predict) {
    double sum = 0.0;
    for (size_t i = 0; i < s.n(); ++i) {
        const double e = predict(std::span<const float>(s.x.data() + i * dim, dim)) - s.y[i];
        sum += e * e;
    }
    return sum / double(s.n());
}

// "1e+30", not to_string's thirty digits.
std::string shortest(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
}

}  // namespace

double lifespan_target(float lifespan_ticks) {
    return std::log1p(double(lifespan_ticks)) / std::log(4.0);
}

GateTraining train_gate(std::span<const LifespanRecords> data, std::span<const std::string> names,
                        const GateTrainOptions& options) {
    check_agree(data, names);
    if (options.hidden < 1 || options.depth < 1 || options.epochs < 0 || options.batch < 1 ||
        !(options.held_out > 0.0 && options.held_out < 1.0) ||
        !(options.learning_rate > 0.0f && std::isfinite(options.learning_rate)))
        throw PolicyInputError(
            "train-gate: hidden, depth and batch must be at least 1, epochs "
            "at least 0, the held-out fraction in (0, 1), the learning rate "
            "positive");
    const GateShape shape{data[0].n_layers, data[0].key_dim, options.hidden, options.depth};
    const size_t dim = size_t(shape.input_dim);
    SplitMix rng{options.seed};
    std::vector<std::vector<GateDense>> layers;
    std::vector<GateLayerReport> reports;
    std::vector<Samples> tests;
    for (int l = 0; l < shape.n_layers; ++l) {
        Samples train, test;
        split_layer(data, l, options.held_out, train, test);
        if (train.n() == 0 || test.n() == 0)
            throw PolicyInputError("train-gate: layer " + std::to_string(l) + " has " +
                                   std::to_string(train.n()) + " training and " +
                                   std::to_string(test.n()) +
                                   " held-out records; record longer runs");
        // Standardise the inputs with the training records' statistics (double sums).
        std::vector<double> mean(dim, 0.0), sd(dim, 0.0);
        for (size_t i = 0; i < train.n(); ++i)
            for (size_t j = 0; j < dim; ++j) mean[j] += double(train.x[i * dim + j]);
        for (double& m : mean) m /= double(train.n());
        for (size_t i = 0; i < train.n(); ++i)
            for (size_t j = 0; j < dim; ++j) {
                const double d = double(train.x[i * dim + j]) - mean[j];
                sd[j] += d * d;
            }
        for (double& s : sd) {
            s = std::sqrt(s / double(train.n()));
            if (s < 1e-8) s = 1.0;  // a constant feature: centred, not scaled
        }
        std::vector<float> xs(train.x.size());
        for (size_t i = 0; i < train.n(); ++i)
            for (size_t j = 0; j < dim; ++j)
                xs[i * dim + j] = float((double(train.x[i * dim + j]) - mean[j]) / sd[j]);
        const double y_mean =
            std::accumulate(train.y.begin(), train.y.end(), 0.0) / double(train.n());

        MlpTrainer trainer(shape, float(y_mean), rng);
        std::vector<size_t> order(train.n());
        for (int epoch = 0; epoch < options.epochs; ++epoch) {
            std::iota(order.begin(), order.end(), size_t(0));
            for (size_t i = order.size(); i > 1; --i)  // Fisher-Yates with the seeded stream
                std::swap(order[i - 1], order[size_t(rng.next() % i)]);
            for (size_t start = 0; start < order.size(); start += size_t(options.batch)) {
                const size_t end = std::min(order.size(), start + size_t(options.batch));
                const float scale = 1.0f / float(end - start);
                for (size_t k = start; k < end; ++k) {
                    trainer.forward(xs.data() + order[k] * dim);
                    trainer.backward(train.y[order[k]], scale);
                }
                trainer.step(options.learning_rate);
            }
        }
        std::vector<GateDense> fcs = std::move(trainer.layers());
        fold_standardisation(fcs[0], mean, sd);
        layers.push_back(std::move(fcs));
        GateLayerReport report;
        report.train = train.n();
        report.held_out = test.n();
        report.train_mean = y_mean;
        reports.push_back(report);
        tests.push_back(std::move(test));
    }
    GateTraining result{GateMlp(shape, data[0].key_kind, std::move(layers)), std::move(reports)};
    for (int l = 0; l < shape.n_layers; ++l) {
        GateLayerReport& r = result.layers[size_t(l)];
        r.constant_loss = mean_squared_error(tests[size_t(l)], dim,
                                             [&](std::span<const float>) { return r.train_mean; });
        r.gate_loss = mean_squared_error(tests[size_t(l)], dim, [&](std::span<const float> key) {
            return double(result.gate.score(l, key));
        });
        // Training that diverged (too large a learning rate) leaves NaN or infinite weights or
        // scores; such a gate would evict arbitrarily (a NaN loses every comparison), so none
        // is returned to be written.
        for (size_t i = 0; i < result.gate.layer(l).size(); ++i) {
            const GateDense& d = result.gate.layer(l)[i];
            if (!std::all_of(d.weight.begin(), d.weight.end(),
                             [](float w) { return std::isfinite(w); }) ||
                !std::all_of(d.bias.begin(), d.bias.end(),
                             [](float b) { return std::isfinite(b); }))
                throw PolicyInputError("train-gate: layer " + std::to_string(l) +
                                       " diverged: fully connected layer " + std::to_string(i) +
                                       " has non-finite weights (learning rate " +
                                       shortest(options.learning_rate) + ")");
        }
        if (!std::isfinite(r.gate_loss))
            throw PolicyInputError("train-gate: layer " + std::to_string(l) +
                                   " diverged: held-out loss " + shortest(r.gate_loss) +
                                   " (learning rate " + shortest(options.learning_rate) + ")");
    }
    return result;
}

}  // namespace kvw
