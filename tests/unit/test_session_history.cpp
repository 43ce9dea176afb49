// Session history (ARCHITECTURE §15): undo / redo, named snapshots and forks give the state hash
// the original run had at the same point. The reference is what the original run recorded as it
// went (its state hash, tick and ledger size after every command), never the history code.
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "core/session/session_error.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// Sampled (not greedy) with a selective policy, so that the sampler's and the proposer's state
// must come back too, not only the cache.
SessionOptions options() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.proposer = "pair-merge";
    o.sampling.temperature = 0.8f;
    o.sampling.top_p = 0.95f;
    o.sampling.seed = 11;
    return o;
}

Action del(int pos) { return Action{DeleteAction{pos}, {}}; }
Action replace(int p1, int p2, std::vector<int32_t> ids, std::vector<int> layers = {}) {
    return Action{ReplacePairAction{p1, p2, std::move(ids)}, std::move(layers)};
}

// What the original run was after each command: [commands done] -> outcome.
struct Point {
    uint64_t hash = 0;
    int64_t tick = 0;
    int64_t ledger = 0;
    bool operator==(const Point&) const = default;
};

Point point(const Session& s) { return {s.state_hash(), s.tick(), s.state().ledger().size()}; }

// A run with ticks, injected and applied edits (on some layers only), a rejected inject and a
// policy change; points[i] is the session after its first i commands.
std::vector<Point> record_run(Session& s) {
    std::vector<Point> points{point(s)};
    auto done = [&] {
        QCOMPARE(size_t(s.undo_depth()), points.size());
        points.push_back(point(s));
    };
    s.start("the quick brown fox jumps over the lazy dog");
    done();
    for (int i = 0; i < 3; ++i) {
        s.step();
        done();
    }
    s.inject({replace(3, 4, {100, 101})});
    done();
    s.step();
    done();
    try {
        s.inject({del(9999)});
    } catch (const ActionsRejected&) {
    }
    done();
    s.apply_now({del(1), Action{AddAction{42}, {}}});
    done();
    s.inject({replace(2, 5, {7}, {1, 3})});
    done();
    s.step();
    done();
    s.set_rope_policy(RopePolicy::Reindex);
    done();
    for (int i = 0; i < 4; ++i) {
        s.step();
        done();
    }
    return points;
}

}  // namespace

class TestSessionHistory : public QObject {
    Q_OBJECT
private slots:
    // Undo one command at a time back to the prompt, each giving the recorded point; then redo
    // all of them, each giving the recorded point again, and the same trace.
    void undo_then_redo_walks_the_recorded_points() {
        Session s(options(), tiny_model());
        const std::vector<Point> points = record_run(s);
        const std::string original = s.trace().to_ndjson();
        const size_t last = points.size() - 1;
        QCOMPARE(s.redo_depth(), 0);

        for (size_t k = 1; k < last; ++k) {
            s.undo();
            QCOMPARE(point(s), points[last - k]);
            QCOMPARE(s.redo_depth(), int(k));
            QCOMPARE(size_t(s.undo_depth()), last - k);
        }
        for (size_t done = 1; done < last; ++done) {
            s.redo();
            QCOMPARE(point(s), points[done + 1]);
        }
        QCOMPARE(s.redo_depth(), 0);
        QCOMPARE(s.trace().to_ndjson(), original);
        // The session goes on as the original would have: a step after the redo is the step
        // a copy of the run takes.
        Session copy(options(), tiny_model());
        record_run(copy);
        copy.step();
        s.step();
        QCOMPARE(point(s), point(copy));
    }

    // Several steps at once land on the same points as one by one.
    void undo_and_redo_several_steps() {
        Session s(options(), tiny_model());
        const std::vector<Point> points = record_run(s);
        const size_t last = points.size() - 1;
        s.undo(5);
        QCOMPARE(point(s), points[last - 5]);
        s.redo(2);
        QCOMPARE(point(s), points[last - 3]);
        s.undo(int(last) - 3);  // back to a session without a prompt
        QVERIFY(!s.started());
        QCOMPARE(point(s), points[0]);
        QCOMPARE(s.redo_depth(), int(last));
        s.redo(int(last));
        QCOMPARE(point(s), points[last]);
    }

    // A new command after an undo drops the redo branch; the state is the new branch's.
    void a_new_command_after_undo_drops_redo() {
        Session s(options(), tiny_model());
        const std::vector<Point> points = record_run(s);
        const size_t last = points.size() - 1;
        s.undo(3);
        QCOMPARE(s.redo_depth(), 3);
        s.inject({del(2)});  // a different edit
        QCOMPARE(s.redo_depth(), 0);
        QVERIFY_THROWS_EXCEPTION(HistoryError, s.redo());
        s.step();
        QCOMPARE(s.tick(), points[last - 2].tick);
        QVERIFY(s.state_hash() != points[last - 2].hash);  // the delete made another state
        // Undo of the new branch comes back to the point where it left the old one.
        s.undo(2);
        QCOMPARE(point(s), points[last - 3]);
    }

    void refused_history_commands_change_nothing() {
        Session s(options(), tiny_model());
        const std::vector<Point> points = record_run(s);
        const Point now = points.back();
        try {
            s.undo(int(points.size()));
            QFAIL("undo past the header");
        } catch (const HistoryError& e) {
            QCOMPARE(e.kind(), HistoryErrorKind::NothingToUndo);
        }
        QVERIFY_THROWS_EXCEPTION(HistoryError, s.redo());
        try {
            s.restore("nope");
            QFAIL("restore of an unknown name");
        } catch (const HistoryError& e) {
            QCOMPARE(e.kind(), HistoryErrorKind::UnknownSnapshot);
        }
        try {
            s.fork(999);
            QFAIL("fork at a tick never reached");
        } catch (const HistoryError& e) {
            QCOMPARE(e.kind(), HistoryErrorKind::NoSuchTick);
        }
        QCOMPARE(point(s), now);
    }

    // Named snapshots come back to their point whatever happened since, undo included, and
    // undo after a restore walks back the snapshot's own history.
    void snapshots_restore_their_point() {
        Session s(options(), tiny_model());
        const std::vector<Point> points = record_run(s);
        const size_t last = points.size() - 1;
        s.undo(4);
        s.snapshot("before-reindex-steps");
        QCOMPARE(s.snapshot_names(), std::vector<std::string>{"before-reindex-steps"});
        s.redo(4);
        s.step();
        s.step();
        s.restore("before-reindex-steps");
        QCOMPARE(point(s), points[last - 4]);
        QCOMPARE(s.redo_depth(), 0);
        s.undo();
        QCOMPARE(point(s), points[last - 5]);
    }

    // A fork at tick N has the original's recorded hash at N (the tick event's, in the trace);
    // it goes its own way without touching the original.
    void fork_at_tick_matches_the_original() {
        Session s(options(), tiny_model());
        const std::vector<Point> points = record_run(s);
        for (const Point& p : points) {
            if (p.tick == 0 && p.ledger == 0) continue;  // before the prompt: no tick 0 yet
            std::unique_ptr<Session> f = s.fork(p.tick);
            // The fork is at the first point that reached the tick (later edits at the same
            // tick are not part of it).
            const Point* first = nullptr;
            for (const Point& q : points)
                if (q.tick == p.tick && q.ledger != 0) {
                    first = &q;
                    break;
                }
            QCOMPARE(point(*f), *first);
        }
        std::unique_ptr<Session> f = s.fork(4);
        f->inject({del(3)});
        f->step();
        f->step();
        QCOMPARE(point(s), points.back());
        QVERIFY(f->state_hash() != s.state_hash());
        // The fork has its own history.
        f->undo(3);
        QCOMPARE(point(*f), point(*s.fork(4)));
    }
};

QTEST_GUILESS_MAIN(TestSessionHistory)
#include "test_session_history.moc"
