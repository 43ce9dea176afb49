// The cache's rows in a device's memory (issue 29, docs/ARCHITECTURE.md §18), without a GPU:
// every layout and storage type on RemoteRows (tests/unit/remote_rows.h), whose memory the host
// cannot dereference, against the same layout on the host, edit by edit; then whole sessions on
// the "test:remote" backend against "cpu", bit for bit, through edits, K-shifts, ring wraps, a
// key-scoring policy, wLOD, other K/V types, rebuilds, undo, clones and a switch of backend. A
// RowBuffer that read a plane without its device's calls would fault here; one that lost a row on
// the way would differ.
#include <QtTest>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/cache/kv_layout.h"
#include "core/cache/ring_layout.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "tests/unit/error_checks.h"
#include "tests/unit/remote_rows.h"
#include "tests/unit/twin_sessions.h"

using namespace kvw;
using kvw::test::remote_rows;

namespace {

constexpr int kLayers = 2;
constexpr int kGroups = 2;
constexpr int kDim = 12;  // two groups (KV heads) of 6: no multiple of a vector width
constexpr int kCapacity = 40;

std::vector<float> random_rows(std::mt19937& rng, int n) {
    std::normal_distribution<float> normal(0.0f, 4.0f);
    std::vector<float> x(size_t(n) * kDim);
    for (float& v : x) v = normal(rng);
    if (n > 0 && rng() % 4 == 0) x[0] = 1.0e30f;  // clips in f16 and int8 alike
    return x;
}

// Every logical row of every layer as stored, read and counted: what the two must agree on.
QString differs(const KvLayout& a, const KvLayout& b) {
    for (int l = 0; l < kLayers; ++l) {
        const QString at = QString("layer %1: ").arg(l);
        if (a.rows(l) != b.rows(l)) return at + "rows";
        std::vector<uint8_t> sa, sb;
        a.append_stored_rows(l, 0, a.rows(l), sa);
        b.append_stored_rows(l, 0, b.rows(l), sb);
        if (sa != sb) return at + "stored rows";
        std::vector<float> ka(kDim), kb(kDim), va(kDim), vb(kDim);
        for (int r = 0; r < a.rows(l); ++r) {
            a.read_k(l, r, ka.data());
            b.read_k(l, r, kb.data());
            a.read_v(l, r, va.data());
            b.read_v(l, r, vb.data());
            if (std::memcmp(ka.data(), kb.data(), kDim * sizeof(float)) != 0 ||
                std::memcmp(va.data(), vb.data(), kDim * sizeof(float)) != 0)
                return at + QString("decoded row %1").arg(r);
        }
        for (const auto& [x, y] :
             {std::pair{a.k_stats(l), b.k_stats(l)}, {a.v_stats(l), b.v_stats(l)}})
            if (x.saturated != y.saturated || x.nan_inputs != y.nan_inputs) return at + "stats";
        if (a.nonfinite_scales(l) != b.nonfinite_scales(l)) return at + "non-finite scales";
        const LayerContext ca = a.view(l), cb = b.view(l);
        for (int j = 0; j < ca.rows; ++j)
            if (ca.physical_row(j) != cb.physical_row(j)) return at + "row index";
        if (const auto* ring = dynamic_cast<const RingLayout*>(&a)) {
            const std::string bad = ring->check_window(l) + ring->check_checksum(l);
            if (!bad.empty()) return at + QString::fromStdString(bad);
            if (ring->slab_saturated(l, 0) !=
                dynamic_cast<const RingLayout&>(b).slab_saturated(l, 0))
                return at + "clip counters";
        }
    }
    return {};
}

// One random edit, the same on both.
void edit(std::mt19937& rng, KvLayout& a, KvLayout& b, const KvLayout& source) {
    const int l = int(rng() % kLayers);
    const int rows = a.rows(l);
    const int room = a.remaining(l);
    const auto pick = [&](int n) { return n > 0 ? int(rng() % uint32_t(n)) : 0; };
    switch (rng() % 9) {
        case 0:
        case 1: {
            const int n = std::min(room, 1 + pick(4));
            const std::vector<float> k = random_rows(rng, n), v = random_rows(rng, n);
            for (KvLayout* c : {&a, &b}) c->append(l, k.data(), v.data(), n);
            break;
        }
        case 2: {
            const int n = std::min(room, 1 + pick(3));
            const int at = pick(rows + 1);
            const std::vector<float> k = random_rows(rng, n), v = random_rows(rng, n);
            for (KvLayout* c : {&a, &b}) c->insert(l, at, k.data(), v.data(), n);
            break;
        }
        case 3:
            if (rows > 0) {
                const int at = pick(rows);
                for (KvLayout* c : {&a, &b}) c->remove(l, at);
            }
            break;
        case 4:
            if (rows > 1) {
                const int at = pick(rows - 1);
                const int n = 1 + pick(rows - at);
                for (KvLayout* c : {&a, &b}) c->remove_range(l, at, n);
            }
            break;
        case 5:
            if (rows > 0) {
                const int at = pick(rows);
                const int n = 1 + pick(rows - at);
                const std::vector<float> k = random_rows(rng, n), v = random_rows(rng, n);
                for (KvLayout* c : {&a, &b}) c->overwrite(l, at, k.data(), v.data(), n);
            }
            break;
        case 6:
            if (rows > 0) {  // the K-shift after a deletion: the rows from one on move back
                std::vector<int32_t> delta(static_cast<size_t>(rows), 0);
                for (int r = pick(rows); r < rows; ++r) delta[size_t(r)] = 1 + pick(3);
                for (KvLayout* c : {&a, &b}) c->rerotate_k(l, delta, kDim / kGroups, RopeParams{});
            }
            break;
        case 7:
            if (rows > 0) {
                const int keep = pick(rows);
                for (KvLayout* c : {&a, &b}) c->truncate(l, keep);
            }
            break;
        case 8:  // rows from another device (the host's source)
            if (source.rows(l) <= room)
                for (KvLayout* c : {&a, &b}) c->append_stored(l, source);
            break;
    }
}

}  // namespace

class TestRemoteRows : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::register_remote_backend(); }

    void layouts_on_remote_memory_equal_the_host_data() { test::add_layout_rows(); }
    void layouts_on_remote_memory_equal_the_host() {
        QFETCH(int, layout);
        QFETCH(int, ring_mode);
        const int64_t allocations = remote_rows().allocations();
        RingOptions ring;
        if (ring_mode >= 0) ring = {RingMode(ring_mode), 2, 2, ring_mode == int(RingMode::Pointer)};
        for (const KvStorage storage : {KvStorage{KvType::F32, KvType::F32, kGroups},
                                        KvStorage{KvType::F16, KvType::BF16, kGroups},
                                        KvStorage{KvType::Int8, KvType::Fp8E4M3, kGroups}}) {
            std::mt19937 rng(7 + uint32_t(storage.k));
            const auto make = [&](KvRowDevice& device) {
                return make_kv_layout(CacheLayout(layout), kLayers, kDim, kCapacity, storage, ring,
                                      device);
            };
            const auto host = make(host_row_device());
            const auto remote = make(remote_rows());
            QCOMPARE(&remote->device(), static_cast<KvRowDevice*>(&remote_rows()));
            const auto source =
                make_kv_layout(CacheLayout::Contiguous, kLayers, kDim, kCapacity, storage);
            for (int l = 0; l < kLayers; ++l) {
                const std::vector<float> k = random_rows(rng, 3), v = random_rows(rng, 3);
                source->append(l, k.data(), v.data(), 3);
            }
            std::unique_ptr<KvLayout> dormant;
            for (int i = 0; i < 300; ++i) {
                edit(rng, *host, *remote, *source);
                const QString bad = differs(*host, *remote);
                QVERIFY2(bad.isEmpty(), qPrintable(QString("edit %1: %2").arg(i).arg(bad)));
                if (i == 150) dormant = remote->dormant_clone(nullptr);
            }
            // Copies: on the same device, to the host, a checkpoint's copy back onto the device.
            const auto same = remote->clone();
            const auto to_host = remote->clone(host_row_device());
            QCOMPARE(&to_host->device(), &host_row_device());
            QVERIFY2(differs(*host, *same).isEmpty(), qPrintable(differs(*host, *same)));
            QVERIFY2(differs(*host, *to_host).isEmpty(), qPrintable(differs(*host, *to_host)));
            const auto thawed = dormant->clone(remote_rows());
            QCOMPARE(&thawed->device(), static_cast<KvRowDevice*>(&remote_rows()));
            QVERIFY(thawed->rows(0) >= 0 && differs(*thawed, *dormant->clone()).isEmpty());
        }
        QCOMPARE(remote_rows().allocations(), allocations);  // every allocation given back
    }

    // FT-022 on a device the host cannot read, every layout: the position starts at 0 and
    // advances by the rows written; a prefill and the same rows appended one at a time (also
    // as rows in the device's own memory, as a forward leaves them) store the same bytes; a
    // write past the capacity is CapacityExceeded naming the position and the capacity and
    // changes nothing; reset empties the cache.
    void ft022_on_remote_rows_data() { test::add_layout_rows(); }
    void ft022_on_remote_rows() {
        QFETCH(int, layout);
        QFETCH(int, ring_mode);
        RingOptions ring;
        if (ring_mode >= 0) ring = {RingMode(ring_mode), 2, 2, ring_mode == int(RingMode::Pointer)};
        const KvStorage storage{KvType::Int8, KvType::F16, kGroups};
        const auto make = [&] {
            return make_kv_layout(CacheLayout(layout), kLayers, kDim, 8, storage, ring,
                                  remote_rows());
        };
        std::mt19937 rng(11);
        const std::vector<float> k = random_rows(rng, 5), v = random_rows(rng, 5);
        const auto prefill = make(), decode = make(), resident = make();
        QCOMPARE(prefill->rows(0), 0);
        prefill->append(0, k.data(), v.data(), 5);
        QCOMPARE(prefill->rows(0), 5);
        QCOMPARE(prefill->rows(1), 0);
        // The rows uploaded to the device's memory, handed over where they are.
        DeviceBytes on_device(remote_rows(), 2 * k.size() * sizeof(float));
        remote_rows().upload(on_device.as(), k.data(), k.size() * sizeof(float));
        remote_rows().upload(on_device.as<float>() + k.size(), v.data(), v.size() * sizeof(float));
        const NewRows device_rows{on_device.as<float>(), on_device.as<float>() + k.size(),
                                  RowsAt::Device};
        for (int i = 0; i < 5; ++i) {
            decode->append(0, NewRows{k.data(), v.data()}.from(i, kDim), 1);
            resident->append(0, device_rows.from(i, kDim), 1);
            QCOMPARE(decode->rows(0), i + 1);
        }
        QCOMPARE(differs(*prefill, *decode), QString());
        QCOMPARE(differs(*prefill, *resident), QString());
        std::vector<uint8_t> before;
        prefill->append_stored_rows(0, 0, 5, before);
        QCOMPARE(test::capacity_exceeded_mismatch([&] { prefill->append(0, device_rows, 4); }, 0, 5,
                                                  4, 8),
                 QString());
        std::vector<uint8_t> after;
        prefill->append_stored_rows(0, 0, prefill->rows(0), after);
        QVERIFY(after == before);
        prefill->reset();
        QCOMPARE(prefill->rows(0), 0);
        prefill->append(0, device_rows, 2);  // written from position 0 again
        std::vector<uint8_t> again;
        prefill->append_stored_rows(0, 0, 2, again);
        QVERIFY(std::equal(again.begin(), again.end(), before.begin()));
    }

    void a_session_on_remote_rows_equals_the_cpu() {
        const std::shared_ptr<const Model> model = load_model("synthetic:tiny");
        std::unique_ptr<Session> remote = test::tiny_session_on(model, "test:remote");
        std::unique_ptr<Session> host = test::tiny_session_on(model, "cpu");
        using test::delete_row;
        int32_t next = 11;
        const auto steps = [&next](int n) { return test::forced_steps(next, n); };
        const std::vector<std::function<void(Session&)>> commands = {
            [](Session& s) { s.start("rows that live where the host cannot read them"); },
            steps(3),
            [](Session& s) { s.apply_now({delete_row(2)}); },
            [](Session& s) { s.apply_now({delete_row(4, {1})}); },
            [](Session& s) {
                s.apply_now({Action{InsertAction{3, {7, 8}}, {}}});
            },
            [](Session& s) { s.set_layout(CacheLayout::Indirection); },
            steps(2),
            [](Session& s) {
                s.apply_now({delete_row(1), delete_row(5, {0, 2})});
            },
            [](Session& s) {
                s.set_layout(CacheLayout::Ring, {RingMode::Pointer, 2, 2, true}, 24);
            },
            steps(20),  // the ring wraps
            [](Session& s) { s.set_layout(CacheLayout::BatchSplice); },
            [](Session& s) { s.set_proposer("h2o"); },  // reads every scored row's key
            steps(4),
            [](Session& s) { s.set_proposer("manual"); },
            [](Session& s) { s.set_wlod(4, 0); },
            [](Session& s) {
                s.apply_now({Action{CollapseAction{4, 1}, {}}});
            },
            steps(2),
            [](Session& s) {
                s.apply_now({Action{ExpandAction{4}, {}}});
            },
            [](Session& s) { s.set_wlod(0, 0); },
            [](Session& s) { s.set_rope_policy(RopePolicy::Reindex); },  // K-shifts from here
            [](Session& s) { s.apply_now({delete_row(3)}); },
            [](Session& s) { s.set_kv_types(KvType::Int8, KvType::F16); },
            [](Session& s) { s.snapshot("int8"); },
            steps(3),
            [](Session& s) { s.rebuild(); },
            [](Session& s) { s.undo(2); },
            steps(2),
            [](Session& s) { s.restore("int8"); },
            steps(1),
        };
        for (size_t i = 0; i < commands.size(); ++i) {
            commands[i](*remote);
            commands[i](*host);
            next = (next * 7 + 3) % 500 + 5;
            const QString where = QString("command %1").arg(i);
            QVERIFY2(remote->state_hash() == host->state_hash(),
                     qPrintable(where + ": state hash"));
            QVERIFY2(remote->state().last_logits() == host->state().last_logits(),
                     qPrintable(where + ": logits"));
            QCOMPARE(&remote->state().cache().device(), static_cast<KvRowDevice*>(&remote_rows()));
        }
        // The drift map: the reference pass made where the rows are, compared on the host.
        const DriftReport remote_drift = remote->measure_drift(),
                          host_drift = host->measure_drift();
        QCOMPARE(remote_drift.layers.size(), host_drift.layers.size());
        for (size_t l = 0; l < host_drift.layers.size(); ++l) {
            QVERIFY(!host_drift.layers[l].k.empty());
            QVERIFY(remote_drift.layers[l].k == host_drift.layers[l].k);
            QVERIFY(remote_drift.layers[l].v == host_drift.layers[l].v);
        }
        // A clone makes its own backend and copies the rows onto its device.
        const std::unique_ptr<Session> remote_copy = remote->clone(), host_copy = host->clone();
        QCOMPARE(&remote_copy->state().cache().device(), static_cast<KvRowDevice*>(&remote_rows()));
        remote_copy->step_forced(40);
        host_copy->step_forced(40);
        QVERIFY(remote_copy->state_hash() == host_copy->state_hash());
        QVERIFY(remote_copy->state().last_logits() == host_copy->state().last_logits());
        // The rows move to the host with the backend, and back.
        remote->set_backend("cpu");
        QCOMPARE(&remote->state().cache().device(), &host_row_device());
        remote->step_forced(41);
        host->step_forced(41);
        QVERIFY(remote->state().last_logits() == host->state().last_logits());
        remote->set_backend("test:remote");
        QCOMPARE(&remote->state().cache().device(), static_cast<KvRowDevice*>(&remote_rows()));
        remote->step_forced(42);
        host->step_forced(42);
        QVERIFY(remote->state().last_logits() == host->state().last_logits());
    }

    // A decode step brings down what it hands the host (the logits it samples from and the
    // attention mass the views and H2O read) and nothing else: the forward's new K and V go
    // into the cache where the backend made them, their finite check counts them there, and
    // the state digest hashes the rows where they are.
    void a_decode_step_brings_down_only_logits_and_mass() {
        const std::shared_ptr<const Model> model = load_model("synthetic:tiny");
        const std::unique_ptr<Session> s = test::tiny_session_on(model, "test:remote");
        s->start("only what the host reads comes down");
        for (int32_t token : {9, 10, 11}) {
            const uint64_t before = remote_rows().downloaded();
            s->step_forced(token);
            size_t floats = s->state().last_logits().size();
            for (const std::vector<float>& mass : s->state().last_attention_mass())
                floats += mass.size();
            QVERIFY(floats > 0);
            QCOMPARE(remote_rows().downloaded() - before, uint64_t(floats * sizeof(float)));
        }
    }
};

QTEST_GUILESS_MAIN(TestRemoteRows)
#include "test_remote_rows.moc"
