// Session checkpoints and clones (ARCHITECTURE §16): an exact copy of a session steps on as the
// session itself does, and undo / redo / fork / restore through a checkpoint land on the state
// the original run had. The reference is what an uninterrupted run recorded (its state hash
// and tick after every command), never the checkpoint code.
#include <QtTest>

#include <set>

#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/session_error.h"
#include "tests/run_length.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// Sampled, so that the sampler's random state must come back too.
SessionOptions base_options() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.sampling.temperature = 0.8f;
    o.sampling.top_p = 0.95f;
    o.sampling.seed = 5;
    return o;
}

// The kinds of session whose bookkeeping a checkpoint must carry: a proposer with a cache
// (pair-merge), the selective policies (scores, windows, accumulated attention), every cache
// layout including the ring (head, counters, shadow copy), the wLOD tree, quantised storage.
struct Kind {
    const char* name;
    SessionOptions options;
};

std::vector<Kind> kinds() {
    std::vector<Kind> out;
    SessionOptions o = base_options();
    o.proposer = "pair-merge";
    out.push_back({"pair-merge, contiguous", o});
    o = base_options();
    o.proposer = "h2o";
    o.policy.budget = {2, 6, 4};
    o.layout = CacheLayout::Indirection;
    out.push_back({"h2o, indirection", o});
    o = base_options();
    o.proposer = "random";
    o.policy.budget = {1, 5, 3};
    o.policy.seed = 9;
    o.layout = CacheLayout::BatchSplice;
    o.rope_policy = RopePolicy::Reindex;
    out.push_back({"random, batch-splice, reindex", o});
    for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
        o = base_options();
        o.layout = CacheLayout::Ring;
        o.capacity = 26;  // 2 sinks + 24 ring rows: the ring wraps within the run
        o.ring = {mode, 2, 3, true};
        o.k_type = KvType::Int8;
        out.push_back({mode == RingMode::Roll      ? "ring roll, int8 K"
                       : mode == RingMode::Pointer ? "ring pointer, int8 K"
                                                   : "ring lut, int8 K",
                       o});
    }
    o = base_options();
    o.proposer = "focus";
    o.wlod_k = 4;
    o.wlod_max = 20;
    out.push_back({"wLOD focus", o});
    return out;
}

// Ticks with an injected delete and an applied insert on the way.
void drive(Session& s, int ticks, std::vector<uint64_t>& hashes) {
    for (int t = 0; t < ticks; ++t) {
        // Recent rows: after any wLOD gist (focus collapses the darkest block it may, and an
        // edit at or before a gist row is refused).
        if (t == 5) s.inject({Action{DeleteAction{s.state().rows(0) - 2}, {}}});
        if (t == 11) s.apply_now({Action{InsertAction{s.state().rows(1) - 1, {17, 18}}, {1}}});
        s.step();
        hashes.push_back(s.state_hash());
    }
}

// What one checkpoint holds, the blocks of its cache and maps included (the store counts each
// of those once, however many copies share it).
uint64_t copy_bytes(const SessionCheckpoint& c) {
    uint64_t blocks = 0;
    c.for_each_shared_block([&](const void*, uint64_t bytes) { blocks += bytes; });
    return c.own_bytes() + blocks;
}

std::set<const void*> shared_blocks(const SessionCheckpoint& c) {
    std::set<const void*> out;
    c.for_each_shared_block([&](const void* block, uint64_t) { out.insert(block); });
    return out;
}

}  // namespace

class TestSessionCheckpoint : public QObject {
    Q_OBJECT
private slots:
    // Every checkpoint of a run, restored and stepped to the end, gives the run's state hash
    // tick by tick, and one tick more gives what the run's next tick gives.
    void a_restored_checkpoint_steps_like_the_run_data() {
        QTest::addColumn<int>("kind");
        const std::vector<Kind> all = kinds();
        for (size_t i = 0; i < all.size(); ++i) QTest::newRow(all[i].name) << int(i);
    }
    void a_restored_checkpoint_steps_like_the_run() {
        QFETCH(int, kind);
        const Kind k = kinds()[size_t(kind)];
        Session s(k.options, tiny_model());
        s.set_checkpoint_options({4, uint64_t(1) << 30});
        s.start("the quick brown fox jumps over the lazy dog");
        std::vector<uint64_t> hashes{s.state_hash()};  // [tick]
        drive(s, 30, hashes);
        QCOMPARE(s.tick(), 30);
        const auto& kept = s.checkpoints().kept();
        QCOMPARE(kept.size(), size_t(7));  // ticks 4, 8, ..., 28
        // Each one replays the rest of the run; under the sanitizers every second one (ticks 4,
        // 12, 20, 28: the first, the last, and both ring wraps between).
        for (size_t i = 0; i < kept.size(); i += size_t(test::run_length(1, 2))) {
            const auto& c = kept[i];
            std::unique_ptr<Session> r = c->restore(s.trace());
            QCOMPARE(r->tick(), c->tick());
            QCOMPARE(r->state_hash(), hashes[size_t(c->tick())]);
            // The rest of the run repeated on the restored session, tick by tick.
            ReplayReport report;
            replay_events(*r, s.trace(), c->events(), s.trace().events().size(), report);
            QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches.front().field.c_str());
            QCOMPARE(r->state_hash(), s.state_hash());
            QCOMPARE(r->trace().to_ndjson(), s.trace().to_ndjson());
        }
        // From the last checkpoint, stepping freely (not replaying) matches the run's own
        // ticks: the sampler and the proposer decide the same.
        std::unique_ptr<Session> r = kept.back()->restore(s.trace());
        Session again(k.options, tiny_model());
        again.start("the quick brown fox jumps over the lazy dog");
        std::vector<uint64_t> unused;
        drive(again, 28, unused);
        for (int t = 29; t <= 31; ++t) {
            r->step();
            again.step();
            QCOMPARE(r->state_hash(), again.state_hash());
            if (t <= 30) QCOMPARE(r->state_hash(), hashes[size_t(t)]);
        }
    }

    // A clone is the session, and independent of it: stepping the clone leaves the original's
    // state hash as it was, and the original then takes the same steps.
    void the_clone_is_independent_data() { a_restored_checkpoint_steps_like_the_run_data(); }
    void the_clone_is_independent() {
        QFETCH(int, kind);
        const Kind k = kinds()[size_t(kind)];
        Session s(k.options, tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        std::vector<uint64_t> hashes;
        drive(s, 12, hashes);
        // Queued (the clone has it queued too); a recent row, after any wLOD gist.
        s.inject({Action{DeleteAction{s.state().rows(0) - 2}, {}}});
        std::unique_ptr<Session> c = s.clone();
        QCOMPARE(c->state_hash(), s.state_hash());
        QCOMPARE(c->trace().to_ndjson(), s.trace().to_ndjson());
        const uint64_t before = s.state_hash();
        std::vector<uint64_t> clone_hashes;
        for (int i = 0; i < 4; ++i) {
            c->step();
            clone_hashes.push_back(c->state_hash());
            QCOMPARE(s.state_hash(), before);
            QCOMPARE(s.tick(), 12);
        }
        for (int i = 0; i < 4; ++i) {
            s.step();
            QCOMPARE(s.state_hash(), clone_hashes[size_t(i)]);
        }
        QCOMPARE(c->frame()->ledger.size(), s.frame()->ledger.size());
    }

    // Undo, redo, fork and restore with checkpoints on give the hashes the run recorded after
    // every command, and they start from a checkpoint: the replay is short.
    void history_through_checkpoints_gives_the_recorded_hashes() {
        SessionOptions o = base_options();
        o.proposer = "h2o";
        o.policy.budget = {2, 8, 4};
        Session s(o, tiny_model());
        s.set_checkpoint_options({4, uint64_t(1) << 30});
        std::vector<uint64_t> by_command{s.state_hash()};  // [commands done]
        std::vector<uint64_t> by_tick;
        s.start("the quick brown fox jumps over the lazy dog");
        by_command.push_back(s.state_hash());
        by_tick.push_back(s.state_hash());
        for (int t = 1; t <= 40; ++t) {
            if (t % 7 == 0) {
                s.inject({Action{DeleteAction{4}, {}}});
                by_command.push_back(s.state_hash());
            }
            s.step();
            by_command.push_back(s.state_hash());
            by_tick.push_back(s.state_hash());
        }
        const size_t done = by_command.size() - 1;
        QCOMPARE(size_t(s.undo_depth()), done);
        QCOMPARE(s.checkpoints().size(), size_t(10));

        // A fork at every tick, and how far each one replayed.
        for (int64_t t = 0; t <= 40; ++t) {
            const std::unique_ptr<Session> f = s.fork(t);
            QCOMPARE(f->tick(), t);
            QCOMPARE(f->state_hash(), by_tick[size_t(t)]);
            ReplayReport report;
            session_from_trace(s.trace(), events_through_tick(s.trace(), t), s.shared_model(),
                               report, &s.checkpoints());
            QVERIFY(report.ok());
            // From the checkpoint at or below t: at most 3 ticks and the injects among them.
            if (t >= 4) QVERIFY2(report.events <= 4, qPrintable(QString::number(report.events)));
        }
        // Undo one by one to the prompt, then redo to the end.
        for (size_t k = 1; k < done; ++k) {
            s.undo();
            QCOMPARE(s.state_hash(), by_command[done - k]);
        }
        QCOMPARE(s.checkpoints().size(), size_t(0));  // none serves the prompt alone
        for (size_t k = 1; k < done; ++k) {
            s.redo();
            QCOMPARE(s.state_hash(), by_command[k + 1]);
        }
        QCOMPARE(s.checkpoints().size(), size_t(10));  // the redone ticks took them again
        s.undo(17);
        QCOMPARE(s.state_hash(), by_command[done - 17]);
        s.redo(17);
        QCOMPARE(s.state_hash(), by_command[done]);
        // A snapshot restored through the checkpoints that serve it.
        s.undo(9);
        s.snapshot("mid");
        s.redo(9);
        s.restore("mid");
        QCOMPARE(s.state_hash(), by_command[done - 9]);
    }

    // Over the budget, every second checkpoint goes and the spacing doubles; the rest stay
    // evenly spread and within the budget.
    void the_budget_thins_the_checkpoints() {
        Session s(base_options(), tiny_model());
        s.set_checkpoint_options({2, uint64_t(1) << 30});
        s.start("the quick brown fox jumps over the lazy dog");
        std::vector<uint64_t> hashes{s.state_hash()};
        drive(s, 32, hashes);
        QCOMPARE(s.checkpoints().size(), size_t(16));
        const uint64_t all = s.checkpoints().bytes();
        QVERIFY(all > 0);
        s.set_checkpoint_options({2, all / 3});
        QVERIFY(s.checkpoints().bytes() <= all / 3);
        QVERIFY(s.checkpoints().size() >= 1);
        const int spacing = s.checkpoints().spacing();
        QVERIFY(spacing >= 4 && (spacing & (spacing - 1)) == 0);  // doubled at least once
        for (const auto& c : s.checkpoints().kept()) QCOMPARE(c->tick() % spacing, int64_t(0));
        // A later checkpoint holds more rows and records than an earlier one: the bytes are
        // those of the copy, trimmed to the rows in use, not of the whole slab.
        QVERIFY(copy_bytes(*s.checkpoints().kept().back()) >
                copy_bytes(*s.checkpoints().kept().front()));
        // Off: none kept, and a fork replays from the start, still exact.
        s.set_checkpoint_options({0, 0});
        QCOMPARE(s.checkpoints().size(), size_t(0));
        QCOMPARE(s.checkpoints().bytes(), uint64_t(0));  // every piece counted out again
        QCOMPARE(s.fork(20)->state_hash(), hashes[20]);
    }

    // A long run's checkpoints hold the ledger once, not once per copy (issue 26 item 7: a
    // streaming run of 20,000 ticks grew to 3.5 GB, each checkpoint a deep copy of the whole
    // ledger), and at most max_kept copies of the few live rows: what they take grows with the
    // ledger alone. Sampled every 1,024 ticks (a ledger chunk) over a run whose rows stay at
    // sink + budget + window.
    void a_long_runs_checkpoints_hold_the_ledger_once() {
        SessionOptions o = base_options();
        o.proposer = "streaming-llm";
        o.policy.budget = {2, 4, 6};
        Session s(o, tiny_model());
        CheckpointOptions every8;
        every8.every = 8;
        every8.budget_bytes = uint64_t(1) << 40;  // only the count may thin them
        every8.max_kept = 16;
        s.set_checkpoint_options(every8);
        s.start("the quick brown fox jumps over the lazy dog");
        // Generous bytes per record (one with its standing in 4 layers is about 240).
        const uint64_t per_record = 512;
        const uint64_t chunk = uint64_t(Ledger::kChunkRecords) * per_record;
        for (int sample = 1; sample <= test::run_length(4, 2); ++sample) {
            while (s.tick() < sample * Ledger::kChunkRecords) s.step();
            const CheckpointStore& kept = s.checkpoints();
            const Ledger& live = s.state().ledger();
            QVERIFY(kept.size() <= every8.max_kept);
            QVERIFY(kept.size() >= every8.max_kept / 2);
            // Each one shares the live ledger's chunks but the one or two the run wrote after
            // it was taken (the chunk it was appending to, the one its window left from): a
            // deep copy would hold every chunk of its own.
            const std::set<const void*> live_chunks = [&] {
                std::set<const void*> out;
                for (const auto& p : live.record_chunks()) out.insert(p.get());
                return out;
            }();
            uint64_t own = 0;
            for (const auto& c : kept.kept()) {
                int own_chunks = 0;
                for (const auto& p : c->ledger().record_chunks())
                    own_chunks += live_chunks.count(p.get()) ? 0 : 1;
                QVERIFY2(own_chunks <= 2,
                         qPrintable(QString("tick %1: the checkpoint of tick %2 holds %3 of its "
                                            "%4 record chunks alone")
                                        .arg(s.tick())
                                        .arg(c->tick())
                                        .arg(own_chunks)
                                        .arg(c->ledger().chunk_count())));
                own = std::max(own, copy_bytes(*c));
            }
            // So the bytes they take: the ledger once, two chunks and the live rows per copy.
            const uint64_t bound =
                uint64_t(live.size()) * per_record + kept.size() * (2 * chunk + own);
            QVERIFY2(kept.bytes() <= bound,
                     qPrintable(QString("tick %1: checkpoints hold %2 bytes, bound %3")
                                    .arg(s.tick())
                                    .arg(kept.bytes())
                                    .arg(bound)));
            // The live rows stay few: a copy's own bytes do not grow with the ticks.
            QVERIFY(own < chunk);
        }
        // The thinned checkpoints still serve: a fork far back checks every hash it repeats.
        QCOMPARE(s.fork(1000)->tick(), int64_t(1000));
    }

    // The default budget is an eighth of the memory available, at least 256 MiB: read here
    // from /proc/meminfo directly, with the slack of what other processes took or gave back
    // since the session first asked.
    // A checkpoint copies the blocks (kRevisionBlockRows rows) of the cache and of the maps that
    // changed since the one before it and shares the others with it: a decode run writes one or
    // two blocks of each a layer between copies, whatever the rows. An edit that moves every row
    // renews every block, and a checkpoint restored after it is still the run's exact state.
    void checkpoints_share_the_cache_blocks_a_run_left_alone() {
        SessionOptions o = base_options();
        o.capacity = 1024;
        Session s(o, tiny_model());
        s.set_checkpoint_options({8, uint64_t(1) << 34, 256});
        s.start("the quick brown fox jumps over the lazy dog");
        while (s.tick() < 640) s.step();
        const int layers = s.state().n_layers();
        const auto& kept = s.checkpoints().kept();
        QVERIFY(kept.size() >= 40);
        for (size_t i = kept.size() - 20; i + 1 < kept.size(); ++i) {  // 512 rows and more
            const std::set<const void*> before = shared_blocks(*kept[i]),
                                        after = shared_blocks(*kept[i + 1]);
            size_t own = 0;
            for (const void* b : after) own += before.count(b) ? 0 : 1;
            // The block the appends wrote, and the one before it when they crossed into a new one.
            QVERIFY2(own >= size_t(2 * layers) && own <= size_t(4 * layers),
                     qPrintable(QString("the checkpoint of tick %1 holds %2 of its %3 blocks alone")
                                    .arg(kept[i + 1]->tick())
                                    .arg(own)
                                    .arg(after.size())));
            QVERIFY(after.size() >= size_t(6 * layers));  // so the sharing is not vacuous
        }
        // The store counts a shared block once: less than the copies' sum, more than any one.
        uint64_t sum = 0, largest = 0;
        for (const auto& c : kept) {
            sum += copy_bytes(*c);
            largest = std::max(largest, copy_bytes(*c));
        }
        QVERIFY(s.checkpoints().bytes() < sum / 2);
        QVERIFY(s.checkpoints().bytes() > largest);
        // A delete near the front moves every later row: every block is new. The checkpoint
        // after it, restored, is the live session's state to the byte.
        s.inject({Action{DeleteAction{3}, {}}});
        while (s.tick() % 8 != 0 || s.tick() == 640) s.step();
        const auto& last = s.checkpoints().kept().back();
        const auto& before_it = s.checkpoints().kept()[s.checkpoints().size() - 2];
        QCOMPARE(last->tick(), s.tick());
        const std::set<const void*> shared_before = shared_blocks(*before_it);
        for (const void* b : shared_blocks(*last)) QVERIFY(!shared_before.count(b));
        const std::unique_ptr<Session> restored = last->restore(s.trace());
        QCOMPARE(restored->state().state_hash_from_scratch(), s.state().state_hash_from_scratch());
        QVERIFY(all_passed(restored->state().check_invariants_full()));
        restored->step();
        s.step();
        QCOMPARE(restored->state_hash(), s.state_hash());
    }

    void the_default_budget_follows_the_available_memory() {
        const uint64_t budget = CheckpointOptions{}.budget_bytes;
        QVERIFY(budget >= uint64_t(256) << 20);
        QFile meminfo("/proc/meminfo");
        if (!meminfo.open(QIODevice::ReadOnly)) QSKIP("no /proc/meminfo");
        uint64_t available = 0;
        for (const QByteArray& line : meminfo.readAll().split('\n'))
            if (line.startsWith("MemAvailable:"))
                available = line.simplified().split(' ').value(1).toULongLong() * 1024;
        if (available / 8 < (uint64_t(256) << 20)) {
            QCOMPARE(budget, uint64_t(256) << 20);
        } else {
            QVERIFY2(budget > available / 8 * 3 / 4 && budget < available / 8 * 5 / 4,
                     qPrintable(QString("budget %1, available %2").arg(budget).arg(available)));
        }
    }
};

QTEST_GUILESS_MAIN(TestSessionCheckpoint)
#include "test_session_checkpoint.moc"
