// Switching a live session between the CPU reference and the CUDA backend (issue 29 item 4,
// ARCHITECTURE §18): the switch keeps the rows and the state hash, drift then measures how far
// the device's recompute is from the CPU's rows, a rebuild on the device brings drift to zero,
// and the trace replays (on both backends in turn) to the same hashes. Skips as a whole when the
// machine has no CUDA device.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/backend/backend_registry.h"
#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "tests/gpu/cuda_device.h"

using namespace kvw;

namespace {

float max_drift(const DriftReport& d) {
    float worst = 0.0f;
    for (const LayerDrift& l : d.layers)
        for (const std::vector<float>* values : {&l.k, &l.v})
            for (float x : *values) worst = std::max(worst, std::isfinite(x) ? x : INFINITY);
    return worst;
}

bool all_invariants_pass(const Session& s) {
    for (const InvariantResult& r : s.state().check_invariants())
        if (!r.passed) return false;
    return true;
}

}  // namespace

class TestCudaBackendSwitch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (const std::string why = test::why_no_cuda(); !why.empty()) QSKIP(why.c_str());
    }

    void cpu_to_cuda_and_back() {
        const std::shared_ptr<const Model> model = load_model("synthetic:tiny");
        SessionOptions o;
        o.model = "synthetic:tiny";
        o.backend = "cpu";
        o.capacity = 64;
        Session s(o, model);
        s.start("the quick brown fox");
        for (int32_t t : {5, 9, 14, 3}) s.step_forced(t);
        const uint64_t hash = s.state_hash();

        s.set_backend("cuda");
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.frame()->backend, std::string("cuda"));
        QVERIFY(all_invariants_pass(s));
        // The CPU's rows against the device's recompute: a small, finite difference.
        const float difference = max_drift(s.measure_drift());
        QVERIFY2(difference < 1e-3f, qPrintable(QString::number(double(difference))));
        s.rebuild();
        QCOMPARE(max_drift(s.measure_drift()), 0.0f);  // the device repeats its bits
        s.step_forced(22);
        QVERIFY(all_invariants_pass(s));
        s.set_backend("cpu");
        s.step_forced(7);
        QVERIFY(all_invariants_pass(s));

        ReplayReport report;
        const std::unique_ptr<Session> again =
            session_from_trace(s.trace(), s.trace().events().size(), model, report);
        QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches[0].field.c_str());
        QCOMPARE(again->state_hash(), s.state_hash());
    }
};

QTEST_GUILESS_MAIN(TestCudaBackendSwitch)
#include "test_cuda_backend_switch.moc"
