// A learned GistNet from a sidecar (docs/ARCHITECTURE.md §14): its gists against numpy in
// float64 on sidecars written by the gguf package (F32 and F16), bad sidecars refused naming
// the tensor or key, and in a session: its collapses carry the net's gist of the block's token
// embeddings, every wLOD invariant holds, the trace replays with it, and a net made for
// another K or width is a typed error.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "core/gist/gist_file.h"
#include "core/model/gguf_writer.h"
#include "core/model/model_error.h"
#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/state/state_error.h"
#include "tests/testdata.h"
#include "tests/unit/bad_sidecars.h"

using namespace kvw;

namespace {

std::string data(const std::string& name) { return test::testdata_path("gist/" + name); }

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SessionOptions wlod_options(const std::string& gist_net, int k) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 128;
    o.sampling.seed = 5;
    o.wlod_k = k;
    o.gist_net = gist_net;
    return o;
}

// Largest |a - b| / max(1, |b|) over the gist.
double relative_error(const std::vector<float>& got, const QJsonArray& want) {
    double worst = 0.0;
    for (int i = 0; i < want.size(); ++i) {
        const double w = want[i].toDouble();
        worst = std::max(worst, std::abs(got[size_t(i)] - w) / std::max(1.0, std::abs(w)));
    }
    return worst;
}

}  // namespace

class TestGistNet : public QObject {
    Q_OBJECT
private slots:
    void gists_match_float64() {
        const QJsonObject cases = test::read_json_object(data("small_cases.json"));
        const int n = cases["n_embd"].toInt(), k = cases["k"].toInt();
        for (const char* file : {"small.gist.gguf", "small16.gist.gguf"}) {
            const bool half = std::string(file).starts_with("small16");
            const auto net = read_gist_net_file(data(file));
            QCOMPARE(net->embedding_length(), n);
            QCOMPARE(net->block_size(), k);
            QVERIFY(std::string(net->name()).find(file) != std::string::npos);
            int checked = 0;
            for (const QJsonValue& lv : cases["levels"].toArray()) {
                const QJsonObject level = lv.toObject();
                const QJsonArray sets = level["children"].toArray();
                const QJsonArray want = level[half ? "expected_f16" : "expected"].toArray();
                for (int s = 0; s < sets.size(); ++s) {
                    std::vector<std::vector<float>> owned;
                    for (const QJsonValue& c : sets[s].toArray()) {
                        owned.emplace_back();
                        for (const QJsonValue& v : c.toArray())
                            owned.back().push_back(float(v.toDouble()));
                    }
                    const std::vector<std::span<const float>> children(owned.begin(), owned.end());
                    const std::vector<float> got = net->gist(children, level["level"].toInt());
                    QCOMPARE(int(got.size()), n);
                    const double err = relative_error(got, want[s].toArray());
                    QVERIFY2(err < 1e-5, qPrintable(QString("%1 level %2 set %3: %4")
                                                        .arg(file)
                                                        .arg(level["level"].toInt())
                                                        .arg(s)
                                                        .arg(err)));
                    ++checked;
                }
            }
            QCOMPARE(checked, 10);
            // The two levels have their own weights: the same children give other gists.
            std::vector<std::vector<float>> same(size_t(k), std::vector<float>(size_t(n), 1.0f));
            const std::vector<std::span<const float>> children(same.begin(), same.end());
            QVERIFY(net->gist(children, 1) != net->gist(children, 2));
            // K children of n floats, nothing else.
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                     net->gist(std::span(children).first(size_t(k - 1)), 1));
        }
    }

    void bad_sidecars_are_refused_naming_the_tensor() {
        test::expect_bad_sidecars_refused(
            "gist", ".gist.gguf", 9, [](const std::string& file) { read_gist_net_file(file); });
    }

    void a_session_collapses_with_the_learned_net() {
        const std::string path = data("tiny.gist.gguf");
        Session s(wlod_options(path, 4), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        QVERIFY(std::string(s.state().gist_net().name()).find("tiny.gist.gguf") !=
                std::string::npos);
        const std::vector<int64_t> block(s.state().layer_map(0).pos2ledger.begin() + 4,
                                         s.state().layer_map(0).pos2ledger.begin() + 8);
        const TickResult r = s.apply_now({Action{CollapseAction{4, 1}, {}}});
        QVERIFY(!r.rejected && !r.aborted);
        const GistRecord* g = s.state().gist(s.state().layer_map(0).pos2ledger[4]);
        QVERIFY(g);
        // The record's embedding is the net's gist of the block's token embeddings, and not
        // their mean.
        std::vector<std::vector<float>> tokens;
        for (int64_t id : block)
            tokens.push_back(
                s.state().engine().token_embedding(s.state().ledger().at(id).token_id));
        const std::vector<std::span<const float>> children(tokens.begin(), tokens.end());
        const auto net = read_gist_net_file(path);
        QCOMPARE(g->embedding, net->gist(children, 1));
        QVERIFY(g->embedding != MeanPoolGistNet().gist(children, 1));
        for (int i = 0; i < 6; ++i) s.step();
        const FramePtr frame = s.frame();
        for (const InvariantStatus& inv : frame->invariants)
            QVERIFY2(inv.passed, qPrintable(QString::fromStdString(inv.name + ": " + inv.detail)));
        // The tree's gists come from the same net.
        QCOMPARE(s.wlod()->gists(0), s.wlod()->full_gists(s.state(), 0));
        QCOMPARE(s.wlod()->gists(0).at({1, 1}), g->embedding);

        QCOMPARE(s.trace().events().front().value("gist_net", ""), path);
        const ReplayReport report = replay_trace(s.trace());
        QVERIFY(report.checked > 0);
        QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches[0].field.c_str());
    }

    // A net with finite but huge weights (3e38) passes the loader's finite check and overflows
    // in use (issue 26 item 4: the NaN went on into the rows, token 0 was sampled from then on,
    // the invariants passed and drift read 0). The collapse that makes its gist is a typed
    // error naming the layer and the net, and changes nothing; so is a tick whose proposer
    // collapses, the sampler's draw included.
    void a_gist_that_overflows_is_a_typed_error_and_changes_nothing() {
        const int n = tiny_model()->config.n_embd, k = 4;
        const auto f32 = [](size_t count, float value) {
            std::vector<uint8_t> bytes(count * sizeof(float));
            for (size_t i = 0; i < count; ++i)
                std::memcpy(bytes.data() + i * sizeof(float), &value, sizeof(float));
            return bytes;
        };
        GgufWriter w;
        w.add("general.architecture", std::string(kGistArchitecture));
        w.add("gist.embedding_length", uint32_t(n));
        w.add("gist.block_size", uint32_t(k));
        for (int level : {1, 2}) {
            w.add_tensor(gist_tensor_name(level, "pool"), GgufType::F32, {uint64_t(k)},
                         f32(size_t(k), 3e38f));
            w.add_tensor(gist_tensor_name(level, "proj.weight"), GgufType::F32,
                         {uint64_t(n), uint64_t(n)}, f32(size_t(n) * size_t(n), 3e38f));
            w.add_tensor(gist_tensor_name(level, "proj.bias"), GgufType::F32, {uint64_t(n)},
                         f32(size_t(n), 0.0f));
        }
        const std::string path =
            (std::filesystem::temp_directory_path() /
             ("kvw_test_gist_huge_" + std::to_string(::getpid()) + ".gist.gguf"))
                .string();
        w.write_file(path);
        read_gist_net_file(path);  // every weight finite: the loader takes it
        const auto expect_named = [&](const StateError& e) {
            QCOMPARE(e.kind(), StateErrorKind::NonFinite);
            QCOMPARE(e.primitive(), std::string("collapse"));
            const std::string what = e.what();
            QVERIFY2(what.find("layer 0, the level 1 gist of rows") != std::string::npos &&
                         what.find("gist net 'learned:" +
                                   std::filesystem::path(path).filename().string() + "'") !=
                             std::string::npos,
                     e.what());
        };

        Session s(wlod_options(path, k), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        const uint64_t hash = s.state_hash();
        const size_t events = s.trace().events().size();
        const int64_t records = s.state().ledger().size();
        try {
            s.apply_now({Action{CollapseAction{4, 1}, {}}});
            QFAIL("an overflowing gist went into the cache");
        } catch (const StateError& e) {
            expect_named(e);
        }
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.trace().events().size(), events);
        QCOMPARE(s.state().ledger().size(), records);

        // The focus proposer collapses the darkest block once the rows pass wlod_max.
        SessionOptions o = wlod_options(path, k);
        o.proposer = "focus";
        o.wlod_max = 16;
        o.sampling.temperature = 0.8f;
        Session f(o, tiny_model());
        f.start("in the beginning god created the heaven and the earth");
        bool refused = false;
        for (int t = 0; t < 40 && !refused; ++t) {
            const uint64_t before = f.state_hash();
            const int64_t tick = f.tick();
            const size_t before_events = f.trace().events().size();
            try {
                f.step();
            } catch (const StateError& e) {
                expect_named(e);
                refused = true;
                QCOMPARE(f.state_hash(), before);
                QCOMPARE(f.tick(), tick);
                QCOMPARE(f.trace().events().size(), before_events);
                // Taken back whole: the same step, asked again, draws the same token and
                // meets the same gist.
                QVERIFY_THROWS_EXCEPTION(StateError, f.step());
                QCOMPARE(f.state_hash(), before);
            }
        }
        QVERIFY(refused);
        const ReplayReport report = replay_trace(f.trace());
        QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches[0].field.c_str());
        std::filesystem::remove(path);
    }

    void a_net_for_another_k_or_width_is_refused() {
        try {
            Session s(wlod_options(data("tiny_k8.gist.gguf"), 4), tiny_model());
            QFAIL("a net made for K = 8 was taken with K = 4");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::ShapeMismatch);
            QVERIFY2(std::string(e.what()).find("gist.block_size 8") != std::string::npos,
                     e.what());
        }
        try {
            Session s(wlod_options(data("small.gist.gguf"), 3), tiny_model());
            QFAIL("a net 8 wide was taken for a model 256 wide");
        } catch (const ModelError& e) {
            QCOMPARE(e.kind(), ModelErrorKind::ShapeMismatch);
            QVERIFY2(std::string(e.what()).find("n_embd is 256") != std::string::npos, e.what());
        }
        // Turning wLOD on later with another K is refused the same way, and changes nothing.
        Session s(wlod_options(data("tiny.gist.gguf"), 0), tiny_model());
        s.start("and the earth was without form");
        QVERIFY_THROWS_EXCEPTION(ModelError, s.set_wlod(8, 0));
        QVERIFY(!s.wlod());
        s.set_wlod(4, 0);
        QVERIFY(s.wlod());
    }
};

QTEST_APPLESS_MAIN(TestGistNet)
#include "test_gist_net.moc"
