// The SmartKV gate (docs/ARCHITECTURE.md §12): its forward against numpy in float64 on a
// sidecar written by the gguf package, bad sidecars refused naming the tensor, round trips of
// the sidecar and of recorded lifespans, the pre-RoPE key, the lifespan recorder against a
// plain re-computation from the attention mass, and training against a constant predictor.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <map>

#include "core/model/model_error.h"
#include "core/model/model_loader.h"
#include "core/policy/gate/gate_file.h"
#include "core/policy/gate/gate_key.h"
#include "core/policy/gate/gate_sidecar.h"
#include "core/policy/gate/gate_training.h"
#include "core/policy/gate/lifespan_recorder.h"
#include "core/policy/policy_error.h"
#include "core/session/session.h"
#include "core/state/state_error.h"
#include "tests/testdata.h"
#include "tests/unit/bad_sidecars.h"
#include "tests/unit/reference_rope.h"

using namespace kvw;

namespace {

std::string data(const std::string& name) { return test::testdata_path("gate/" + name); }

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("kvw_test_gate_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

SessionOptions session_options(const std::string& model, uint64_t seed) {
    SessionOptions o;
    o.model = model;
    o.sampling.temperature = 0.9f;
    o.sampling.seed = seed;
    return o;
}

// Runs a session with the full cache and records lifespans.
LifespanRecords record(const std::string& model, const std::string& prompt, int ticks,
                       uint64_t seed, LifespanOptions options) {
    Session session(session_options(model, seed));
    session.start(prompt);
    LifespanRecorder recorder(session.state(), options);
    recorder.begin(session.state());
    for (int i = 0; i < ticks; ++i) {
        session.step();
        recorder.observe(session.state(), session.tick());
    }
    return recorder.records();
}

// Two layers of 600 records whose lifespan is a known function of the key.
LifespanRecords known_function_records() {
    LifespanRecords r;
    r.n_layers = 2;
    r.key_dim = 6;
    r.options = {2.0f, 32};
    r.layers.resize(2);
    uint64_t s = 12345;
    auto next = [&] {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return double(s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    };
    for (int l = 0; l < 2; ++l)
        for (int i = 0; i < 600; ++i) {
            std::vector<float> key(6);
            for (float& k : key) k = float(next() * 3.0);
            const double y = 1.2 + 0.6 * key[0] - 0.4 * std::abs(key[1 + l]);
            const float ticks = std::clamp(std::round(std::pow(4.0, y) - 1.0), 0.0, 32.0);
            r.layers[size_t(l)].keys.insert(r.layers[size_t(l)].keys.end(), key.begin(), key.end());
            r.layers[size_t(l)].lifespans.push_back(ticks);
        }
    return r;
}

double held_out_loss(const GateTraining& t, bool gate) {
    double sum = 0.0, n = 0.0;
    for (const GateLayerReport& r : t.layers) {
        sum += (gate ? r.gate_loss : r.constant_loss) * double(r.held_out);
        n += double(r.held_out);
    }
    return sum / n;
}

}  // namespace

class TestGate : public QObject {
    Q_OBJECT

private slots:
    void forward_matches_float64_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("f32") << "ref.gate.gguf"
                             << "expected";
        QTest::newRow("f16") << "ref16.gate.gguf"
                             << "expected_f16";
    }

    void forward_matches_float64() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const GateMlp gate = read_gate_file(data(file.toStdString()));
        QCOMPARE(gate.shape().n_layers, 2);
        QCOMPARE(gate.shape().input_dim, 8);
        QCOMPARE(gate.shape().hidden, 16);
        QCOMPARE(gate.shape().depth, 3);
        QVERIFY(gate.key_kind() == GateKeyKind::PreRope);
        const QJsonArray layers =
            test::read_json_object(data("ref_cases.json"))["layers"].toArray();
        QCOMPARE(layers.size(), 2);
        int checked = 0;
        for (int l = 0; l < layers.size(); ++l) {
            const QJsonArray inputs = layers[l].toObject()["inputs"].toArray();
            const QJsonArray want_all = layers[l].toObject()[expected].toArray();
            for (int c = 0; c < inputs.size(); ++c) {
                std::vector<float> key;
                for (const QJsonValue v : inputs[c].toArray()) key.push_back(float(v.toDouble()));
                const double want = want_all[c].toDouble();
                const double got = gate.score(l, key);
                if (std::abs(got - want) > 1e-4 * (1.0 + std::abs(want)))
                    QFAIL(qPrintable(QString("layer %1 case %2: %3, numpy %4")
                                         .arg(l)
                                         .arg(c)
                                         .arg(got)
                                         .arg(want)));
                ++checked;
            }
        }
        QCOMPARE(checked, 24);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gate.score(0, std::vector<float>(7)));
    }

    void bad_sidecars_are_refused_naming_the_tensor() {
        test::expect_bad_sidecars_refused("gate", ".gate.gguf", 8,
                                          [](const std::string& file) { read_gate_file(file); });
    }

    void sidecar_round_trip() {
        GateMlp gate = read_gate_file(data("ref.gate.gguf"));
        // Another key kind and every weight changed, so nothing read can come from the input.
        std::vector<std::vector<GateDense>> layers;
        for (int l = 0; l < gate.shape().n_layers; ++l) {
            layers.push_back(gate.layer(l));
            for (GateDense& d : layers.back())
                for (float& w : d.weight) w = w * 1.5f + 0.25f;
        }
        const GateMlp changed(gate.shape(), GateKeyKind::PostRope, layers);
        const std::string path = temp_path("round.gate.gguf");
        write_gate_file(changed, path);
        const GateMlp back = read_gate_file(path);
        std::filesystem::remove(path);
        QVERIFY(back.key_kind() == GateKeyKind::PostRope);
        QCOMPARE(back.shape().hidden, changed.shape().hidden);
        for (int l = 0; l < changed.shape().n_layers; ++l)
            for (size_t i = 0; i < changed.layer(l).size(); ++i) {
                QVERIFY(back.layer(l)[i].weight == changed.layer(l)[i].weight);
                QVERIFY(back.layer(l)[i].bias == changed.layer(l)[i].bias);
            }
        QCOMPARE(gate_to_bytes(back), gate_to_bytes(changed));
        // F16: half the bytes, every weight the nearest half of the original.
        write_gate_file(changed, path, GgufType::F16);
        const GateMlp half = read_gate_file(path);
        std::filesystem::remove(path);
        QVERIFY(gate_to_bytes(changed, GgufType::F16).size() < gate_to_bytes(changed).size());
        for (int l = 0; l < changed.shape().n_layers; ++l)
            for (size_t i = 0; i < changed.layer(l).size(); ++i)
                for (size_t j = 0; j < changed.layer(l)[i].weight.size(); ++j) {
                    const float w = changed.layer(l)[i].weight[j];
                    QVERIFY(std::abs(half.layer(l)[i].weight[j] - w) <= std::abs(w) / 1024.0f);
                }
    }

    // Layer 0's K depends on the token alone, so the same token at several positions has one
    // pre-RoPE key; the cached (post-RoPE) rows differ. Rotating the pre-RoPE key forward with
    // a float64 reference gives the cached row back.
    void pre_rope_key_does_not_depend_on_position() {
        Session session(session_options("synthetic:tiny", 1));
        session.start_tokens(std::vector<int32_t>{1, 5, 7, 5, 9, 11, 5});
        const StateManager& state = session.state();
        const ModelConfig& c = state.engine().model().config;
        const int dim = c.kv_dim();
        auto row_k = [&](int row) {
            std::vector<float> k(static_cast<size_t>(dim));
            state.cache().read_k(0, row, k.data());
            return k;
        };
        auto key = [&](int row, GateKeyKind kind) {
            return gate_key(row_k(row), state.layer_map(0).rope_pos[size_t(row)], c,
                            state.engine().rope(), kind);
        };
        const std::vector<float> first = key(1, GateKeyKind::PreRope);
        double post_diff = 0.0;
        for (int row : {3, 6}) {
            const std::vector<float> other = key(row, GateKeyKind::PreRope);
            for (int i = 0; i < dim; ++i)
                QVERIFY(std::abs(other[size_t(i)] - first[size_t(i)]) < 1e-5f);
            const std::vector<float> post = key(row, GateKeyKind::PostRope);
            for (int i = 0; i < dim; ++i) post_diff += std::abs(post[size_t(i)] - first[size_t(i)]);
            // Forward again in float64: the row the cache holds.
            for (int h = 0; h < c.n_kv_heads; ++h) {
                std::vector<double> head(other.begin() + h * c.head_dim,
                                         other.begin() + (h + 1) * c.head_dim);
                test::reference_rope(head.data(), c.head_dim,
                                     state.layer_map(0).rope_pos[size_t(row)], c.rope_theta,
                                     c.rope_layout);
                for (int i = 0; i < c.head_dim; ++i)
                    QVERIFY(std::abs(head[size_t(i)] - row_k(row)[size_t(h * c.head_dim + i)]) <
                            1e-5);
            }
        }
        QVERIFY(post_diff > 1e-2);  // the rotation is not the identity at these positions
    }

    // The recorder against lifespans computed here from each tick's attention mass.
    void recorder_matches_a_plain_recomputation() {
        const LifespanOptions options{1.5f, 12};
        Session session(session_options("synthetic:tiny", 3));
        session.start("the quick brown fox");
        const int64_t first_new = session.state().ledger().size();
        LifespanRecorder recorder(session.state(), options);
        recorder.begin(session.state());
        const int ticks = 40;
        // [layer][id]: birth tick, last age with share >= threshold.
        std::vector<std::map<int64_t, std::pair<int64_t, int>>> seen(
            size_t(session.state().n_layers()));
        for (int t = 0; t < ticks; ++t) {
            session.step();
            const StateManager& s = session.state();
            recorder.observe(s, session.tick());
            for (int l = 0; l < s.n_layers(); ++l) {
                const std::vector<float>& mass = s.last_attention_mass()[size_t(l)];
                double total = 0.0;
                for (float m : mass) total += m;
                for (int row = 0; row < s.rows(l); ++row) {
                    const int64_t id = s.layer_map(l).pos2ledger[size_t(row)];
                    if (id < first_new) continue;
                    auto [it, born] = seen[size_t(l)].try_emplace(id, session.tick(), 0);
                    const int64_t age = session.tick() - it->second.first;
                    const double share = double(mass[size_t(row)]) * double(mass.size()) / total;
                    if (!born && age <= options.horizon && share >= options.threshold)
                        it->second.second = int(age);
                }
            }
        }
        const LifespanRecords& got = recorder.records();
        size_t complete = 0, total_records = 0;
        for (int l = 0; l < got.n_layers; ++l) {
            std::vector<float> want;
            for (const auto& [id, life] : seen[size_t(l)])
                if (session.tick() - life.first >= options.horizon)
                    want.push_back(float(life.second));
            QCOMPARE(got.layers[size_t(l)].lifespans, want);
            complete += want.size();
            total_records += seen[size_t(l)].size();
            // Each record's key is its row's pre-RoPE K (rows never moved: row == id).
            const LifespanRecords::Layer& layer = got.layers[size_t(l)];
            const ModelConfig& c = session.state().engine().model().config;
            for (size_t i = 0; i < layer.count(); ++i) {
                const int row = int(first_new + int64_t(i));
                std::vector<double> head(size_t(c.head_dim));
                std::vector<float> cached(size_t(c.kv_dim()));
                session.state().cache().read_k(l, row, cached.data());
                for (int h = 0; h < c.n_kv_heads; ++h) {
                    for (int j = 0; j < c.head_dim; ++j)
                        head[size_t(j)] =
                            layer.keys[i * size_t(got.key_dim) + size_t(h * c.head_dim + j)];
                    test::reference_rope(head.data(), c.head_dim, row, c.rope_theta, c.rope_layout);
                    for (int j = 0; j < c.head_dim; ++j)
                        QVERIFY(std::abs(head[size_t(j)] - cached[size_t(h * c.head_dim + j)]) <
                                1e-5);
                }
            }
        }
        QCOMPARE(complete, size_t(got.n_layers) * size_t(ticks - options.horizon));
        QCOMPARE(recorder.censored(), total_records - complete);
        // Not all alike: some tokens stay attended, some never are.
        bool varied = false;
        for (const auto& layer : got.layers)
            for (float t : layer.lifespans) varied |= t != layer.lifespans.front();
        QVERIFY(varied);
    }

    void lifespans_file_round_trip_and_bad_values() {
        const LifespanRecords r = record("synthetic:tiny", "a b c", 30, 5, {2.0f, 8});
        const std::string path = temp_path("life.gguf");
        write_lifespans_file(r, path);
        const LifespanRecords back = read_lifespans_file(path);
        QCOMPARE(back.n_layers, r.n_layers);
        QCOMPARE(back.key_dim, r.key_dim);
        QCOMPARE(back.options.horizon, 8);
        QCOMPARE(back.options.threshold, 2.0f);
        for (int l = 0; l < r.n_layers; ++l) {
            QCOMPARE(back.layers[size_t(l)].lifespans, r.layers[size_t(l)].lifespans);
            QVERIFY(back.layers[size_t(l)].keys == r.layers[size_t(l)].keys);
        }
        LifespanRecords bad = r;
        bad.layers[1].lifespans[2] = 9.0f;  // beyond the horizon
        write_lifespans_file(bad, path);
        try {
            read_lifespans_file(path);
            QFAIL("a lifespan beyond the horizon was accepted");
        } catch (const ModelError& e) {
            QVERIFY2(QString(e.what()).contains("lifespans.1.ticks"), e.what());
            QVERIFY2(QString(e.what()).contains("record 2"), e.what());
        }
        std::filesystem::remove(path);
    }

    // A target that is a known function of the key: the training must find it (wrong gradients
    // would not), and the same seed gives the same bytes.
    void training_learns_a_known_function() {
        const LifespanRecords r = known_function_records();
        GateTrainOptions o;
        o.hidden = 32;
        o.depth = 3;
        o.epochs = 40;
        const std::vector<std::string> names = {"synthetic"};
        const GateTraining a = train_gate(std::span(&r, 1), names, o);
        for (const GateLayerReport& rep : a.layers) {
            QCOMPARE(rep.train, size_t(480));
            QCOMPARE(rep.held_out, size_t(120));
            QVERIFY2(rep.gate_loss < 0.2 * rep.constant_loss,
                     qPrintable(QString("%1 vs %2").arg(rep.gate_loss).arg(rep.constant_loss)));
        }
        const GateTraining b = train_gate(std::span(&r, 1), names, o);
        QCOMPARE(gate_to_bytes(a.gate), gate_to_bytes(b.gate));
    }

    // A learning rate that makes Adam diverge left a "-nan" held-out loss and a gate of NaN
    // weights, written all the same (issue 26 item 4): training refuses to return it.
    void a_diverging_training_is_refused_naming_the_layer() {
        const LifespanRecords r = known_function_records();
        GateTrainOptions o;
        o.hidden = 16;
        o.depth = 3;
        o.epochs = 3;
        o.learning_rate = 1e30f;
        const std::vector<std::string> names = {"synthetic"};
        try {
            train_gate(std::span(&r, 1), names, o);
            QFAIL("a diverged gate was returned");
        } catch (const PolicyInputError& e) {
            QVERIFY2(QString(e.what()).startsWith("train-gate: layer 0 diverged") &&
                         QString(e.what()).contains("learning rate 1e+30"),
                     e.what());
        }
    }

    // A gate with finite but huge weights (3e38) passes the loader and scores NaN or infinity:
    // a typed error naming the layer, the row and the gate file where the score is made (the
    // prompt's rows are scored as they enter), and the session keeps nothing of the prompt.
    void a_gate_that_overflows_is_a_typed_error_naming_the_layer() {
        const std::shared_ptr<const Model> model = load_model("synthetic:tiny");
        const GateShape shape{model->config.n_layers, model->config.kv_dim(), 2, 3};
        std::vector<std::vector<GateDense>> layers(size_t(shape.n_layers));
        for (auto& fcs : layers)
            for (int i = 0; i < shape.depth; ++i) {
                GateDense d{shape.fc_in(i), shape.fc_out(i), {}, {}};
                d.weight.assign(size_t(d.in) * size_t(d.out), 3e38f);
                // One hidden unit sees the key's sum, the other its negation: one of them is
                // large unless the sum is exactly 0, and the next layer overflows it.
                if (i == 0) std::fill(d.weight.begin() + d.in, d.weight.end(), -3e38f);
                d.bias.assign(size_t(d.out), 0.0f);
                fcs.push_back(std::move(d));
            }
        const std::string path = temp_path("huge.gate.gguf");
        write_gate_file(GateMlp(shape, GateKeyKind::PreRope, std::move(layers)), path);
        read_gate_file(path);  // every weight finite: the loader takes it

        SessionOptions o = session_options("synthetic:tiny", 1);
        o.proposer = "smartkv";
        o.policy.gate = path;
        o.policy.budget = {2, 4, 4};
        Session session(o, model);
        const size_t header_only = session.trace().events().size();
        try {
            session.start("in the beginning god created the heaven and the earth");
            QFAIL("a gate scoring non-finite values was used");
        } catch (const StateError& e) {
            QCOMPARE(e.kind(), StateErrorKind::NonFinite);
            QCOMPARE(e.primitive(), std::string("score"));
            QVERIFY2(QString(e.what()).contains("layer 0, the smartkv gate " +
                                                QString::fromStdString(path) + "'s score of row"),
                     e.what());
        }
        QVERIFY(!session.started());
        QCOMPARE(session.state().rows(0), 0);
        QCOMPARE(session.trace().events().size(), header_only);
        std::filesystem::remove(path);
    }

    // On lifespans recorded with the embedded model, the trained gate predicts the held-out
    // records better than their training mean.
    void training_beats_a_constant_on_recorded_lifespans() {
        const LifespanOptions options{2.0f, 32};
        std::vector<LifespanRecords> runs;
        std::vector<std::string> names;
        for (uint64_t seed : {1, 2, 3}) {
            runs.push_back(record("builtin:default", "And", 110, seed, options));
            names.push_back("run " + std::to_string(seed));
        }
        GateTrainOptions o;
        o.hidden = 32;
        o.depth = 3;
        o.epochs = 20;
        const GateTraining t = train_gate(runs, names, o);
        QCOMPARE(t.gate.shape().input_dim, 128);
        const double gate = held_out_loss(t, true), constant = held_out_loss(t, false);
        QVERIFY2(gate < 0.9 * constant, qPrintable(QString("%1 vs %2").arg(gate).arg(constant)));
        // The file names the run that disagrees.
        runs[1].key_dim = 64;
        try {
            train_gate(runs, names, o);
            QFAIL("records of different key widths were accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("run 2"), e.what());
        }
    }

    // The gate shipped beside the embedded model is found, fits it, and predicts the lifespans
    // of a run it never saw better than those lifespans' own mean does.
    void shipped_gate_predicts_unseen_lifespans() {
        const std::optional<std::filesystem::path> path = gate_beside_model("builtin:default");
        QVERIFY(path.has_value());
        QCOMPARE(path->filename().string(), std::string("kjv-llama.gate.gguf"));
        QVERIFY(!gate_beside_model("synthetic:tiny").has_value());
        const GateMlp gate = read_gate_file(path->string());
        QCOMPARE(gate.shape().n_layers, 4);
        QCOMPARE(gate.shape().input_dim, 128);
        QCOMPARE(gate.shape().hidden, 256);
        QCOMPARE(gate.shape().depth, 4);
        const LifespanRecords r = record("builtin:default", "And the", 200, 99, LifespanOptions{});
        double gate_sse = 0.0, mean_sse = 0.0;
        for (int l = 0; l < r.n_layers; ++l) {
            const LifespanRecords::Layer& layer = r.layers[size_t(l)];
            QCOMPARE(layer.count(), size_t(200 - 64));
            double mean = 0.0;
            for (float t : layer.lifespans) mean += lifespan_target(t) / double(layer.count());
            for (size_t i = 0; i < layer.count(); ++i) {
                const double y = lifespan_target(layer.lifespans[i]);
                const double p =
                    gate.score(l, std::span<const float>(layer.keys.data() + i * 128, size_t(128)));
                gate_sse += (p - y) * (p - y);
                mean_sse += (mean - y) * (mean - y);
            }
        }
        QVERIFY2(gate_sse < 0.8 * mean_sse,
                 qPrintable(QString("%1 vs %2").arg(gate_sse).arg(mean_sse)));
    }

    // `smartkv` on the embedded model: at the bulk prune every layer keeps the rows with the
    // highest gate scores, and the scores the policy keeps and the ledger records are the
    // gate's on the pre-RoPE key, recomputed here from the cached K rows (taken before the
    // prune) rotated back in float64.
    void smartkv_keeps_the_rows_the_gate_ranks_highest() {
        SessionOptions o = session_options("builtin:default", 4);
        o.proposer = "smartkv";
        o.policy.budget = {2, 10, 4};
        Session session(o);
        session.start(
            "And it came to pass, when the king had heard the words of the book of the law, that "
            "he "
            "rent his clothes. And the king commanded Hilkiah the priest, and Ahikam the son of "
            "Shaphan");
        const StateManager& state = session.state();
        const ModelConfig& c = state.engine().model().config;
        const GateMlp gate = read_gate_file(gate_beside_model("builtin:default")->string());
        const int rows = state.rows(0);
        QVERIFY(rows > 2 * (2 + 10 + 4));
        // [layer][id]: the gate's score of each prompt row, from its K before the prune.
        std::vector<std::map<int64_t, float>> want(size_t(c.n_layers));
        for (int l = 0; l < c.n_layers; ++l)
            for (int row = 0; row < rows; ++row) {
                std::vector<float> key(size_t(c.kv_dim())), cached(size_t(c.kv_dim()));
                state.cache().read_k(l, row, cached.data());
                for (int h = 0; h < c.n_kv_heads; ++h) {
                    std::vector<double> head(size_t(c.head_dim));
                    for (int j = 0; j < c.head_dim; ++j)
                        head[size_t(j)] = cached[size_t(h * c.head_dim + j)];
                    test::reference_rope(head.data(), c.head_dim,
                                         -double(state.layer_map(l).rope_pos[size_t(row)]),
                                         c.rope_theta, c.rope_layout);
                    for (int j = 0; j < c.head_dim; ++j)
                        key[size_t(h * c.head_dim + j)] = float(head[size_t(j)]);
                }
                want[size_t(l)][state.layer_map(l).pos2ledger[size_t(row)]] = gate.score(l, key);
            }
        session.step();
        const FramePtr f = session.frame();
        QVERIFY(f->all_invariants_pass());
        QCOMPARE(f->selection.size(), size_t(c.n_layers));
        for (int l = 0; l < c.n_layers; ++l) {
            QCOMPARE(state.rows(l), 2 + 10 + 4);
            float lowest_kept = INFINITY, highest_pruned = -INFINITY;
            for (const auto& [score, id] : f->selection[size_t(l)].high_value) {
                QVERIFY(std::abs(score - want[size_t(l)].at(id)) < 1e-4f);
                lowest_kept = std::min(lowest_kept, score);
            }
            int pruned = 0;
            for (const auto& [id, score] : want[size_t(l)]) {
                const Removal& r = state.ledger().at(id).removal[size_t(l)];
                if (r.cause.reason != RemovalReason::BulkPrune || r.tick < 0) continue;
                QVERIFY(r.cause.score.has_value());
                QVERIFY(std::abs(*r.cause.score - score) < 1e-4f);
                highest_pruned = std::max(highest_pruned, score);
                ++pruned;
            }
            QCOMPARE(pruned, rows - (2 + 10 + 4));
            QVERIFY2(highest_pruned <= lowest_kept,
                     qPrintable(QString("layer %1: pruned %2 > kept %3")
                                    .arg(l)
                                    .arg(highest_pruned)
                                    .arg(lowest_kept)));
        }
        // Layers choose differently: the gate is per layer.
        QVERIFY(f->selection[0].high_value != f->selection[1].high_value);
    }

    // A model without a gate beside it: choosing smartkv fails with a typed error naming the
    // model, and the session keeps its proposer.
    void smartkv_without_a_gate_is_refused() {
        Session session(session_options("synthetic:tiny", 1));
        session.start("a b c");
        try {
            session.set_proposer("smartkv");
            QFAIL("smartkv without a gate was accepted");
        } catch (const PolicyInputError& e) {
            QVERIFY2(QString(e.what()).contains("synthetic:tiny"), e.what());
        }
        QCOMPARE(session.options().proposer, std::string("manual"));
        QCOMPARE(session.step().rejected, false);
        // A gate of another shape is refused the same way, naming the file.
        PolicyOptions o;
        o.gate = data("ref.gate.gguf");
        session.set_policy_options(o);  // manual ignores the gate
        try {
            session.set_proposer("smartkv");
            QFAIL("a gate of another shape was accepted");
        } catch (const PolicyInputError& e) {
            QVERIFY2(QString(e.what()).contains("ref.gate.gguf"), e.what());
        }
        QCOMPARE(session.options().proposer, std::string("manual"));
    }

    // smartkv chosen before any prompt, on a model without a gate: the choice is refused at
    // once; and a session made with it refuses the prompt without keeping half of it (the
    // proposer's first observe, which reads the gate, used to come after the prefill had
    // replaced the state: started() false over a state holding the prompt's rows).
    void smartkv_without_a_gate_refuses_the_prompt_and_keeps_the_session() {
        Session before(session_options("synthetic:tiny", 1));
        QVERIFY_THROWS_EXCEPTION(PolicyInputError, before.set_proposer("smartkv"));
        QCOMPARE(before.options().proposer, std::string("manual"));

        SessionOptions o = session_options("synthetic:tiny", 1);
        o.proposer = "smartkv";
        Session session(o);
        const size_t header_only = session.trace().events().size();
        try {
            session.start("a b c");
            QFAIL("smartkv without a gate accepted a prompt");
        } catch (const PolicyInputError& e) {
            QVERIFY2(QString(e.what()).contains("synthetic:tiny"), e.what());
        }
        QVERIFY(!session.started());
        QCOMPARE(session.state().rows(0), 0);
        QCOMPARE(session.state().ledger().size(), int64_t(0));
        QCOMPARE(session.trace().events().size(), header_only);
        // Another policy then starts as usual.
        session.set_proposer("manual");
        session.start("a b c");
        QCOMPARE(session.state().rows(0), 4);  // BOS + three tokens
        QCOMPARE(session.step().rejected, false);
    }
};

QTEST_GUILESS_MAIN(TestGate)
#include "test_gate.moc"
