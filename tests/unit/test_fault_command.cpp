// `fault K` (command::InjectFault): the K-th cache primitive of the next action list applied
// fails between the cache and the mirror. The list aborts and rolls back (rows, invariants), the
// fault fires in that list only and nowhere else (not in a rebuild, not in a later list), a copy
// of the session keeps it armed, 0 disarms it, and the trace replays the aborts identically.
#include <QtTest>

#include <memory>
#include <stdexcept>
#include <string>

#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

std::unique_ptr<Session> started_session() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 128;
    o.sampling.temperature = 0.8f;
    o.sampling.seed = 5;
    auto s = std::make_unique<Session>(o, tiny_model());
    s->start("in the beginning god created the heaven and the earth");
    for (int i = 0; i < 3; ++i) s->step();
    return s;
}

bool invariants_pass(const Session& s) {
    for (const InvariantResult& r : s.state().check_invariants())
        if (!r.passed) return false;
    return true;
}

}  // namespace

class TestFaultCommand : public QObject {
    Q_OBJECT
private slots:
    // A tick's list [delete 3, add]: remove is primitive 1, the append 2.
    void the_armed_primitive_aborts_the_next_tick_and_rolls_back() {
        auto s = started_session();
        const int rows = s->state().rows(0);
        s->inject({Action{DeleteAction{3}, {}}});
        s->inject_fault(2);
        const TickResult aborted = s->step();
        QVERIFY(aborted.aborted);
        QCOMPARE(aborted.failed_primitive, std::string("append"));
        QVERIFY2(aborted.abort_reason.find("fault injected") != std::string::npos,
                 aborted.abort_reason.c_str());
        QVERIFY(aborted.rebuilt);
        QCOMPARE(s->state().rows(0), rows);
        QVERIFY(invariants_pass(*s));
        // Fired once: the next tick goes in.
        QVERIFY(!s->step().aborted);
        QCOMPARE(s->state().rows(0), rows + 1);
        QVERIFY(replay_trace(s->trace()).ok());
    }

    void an_apply_meets_it_and_a_rebuild_does_not() {
        auto s = started_session();
        s->inject_fault(1);
        s->rebuild();  // primitives outside a list's transaction never fail
        QVERIFY(invariants_pass(*s));
        const int rows = s->state().rows(0);
        const TickResult r = s->apply_now({Action{DeleteAction{2}, {}}});
        QVERIFY(r.aborted);
        QCOMPARE(r.failed_primitive, std::string("remove"));
        QCOMPARE(s->state().rows(0), rows);
        QVERIFY(!s->apply_now({Action{DeleteAction{2}, {}}}).aborted);
        QCOMPARE(s->state().rows(0), rows - 1);
        QVERIFY(replay_trace(s->trace()).ok());
    }

    void a_shorter_list_leaves_nothing_armed_and_zero_disarms() {
        auto s = started_session();
        s->inject_fault(2);
        QVERIFY(!s->step().aborted);  // one primitive: the append
        QVERIFY(!s->step().aborted);  // the second primitive is not this list's
        s->inject_fault(1);
        s->inject_fault(0);
        QVERIFY(!s->step().aborted);
        QVERIFY(replay_trace(s->trace()).ok());
    }

    void a_copy_keeps_it_armed() {
        auto s = started_session();
        s->inject_fault(1);
        const std::unique_ptr<Session> copy = s->clone();
        QVERIFY(copy->step().aborted);
        QVERIFY(s->step().aborted);
    }

    void a_negative_count_is_refused_and_not_recorded() {
        auto s = started_session();
        const size_t events = s->trace().events().size();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s->inject_fault(-1));
        QCOMPARE(s->trace().events().size(), events);
        QVERIFY(!s->step().aborted);
    }
};

QTEST_GUILESS_MAIN(TestFaultCommand)
#include "test_fault_command.moc"
