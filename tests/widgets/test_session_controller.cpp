// SessionController driving a real Session on synthetic:tiny from the UI thread: commands run on
// the worker and come back as Frames; what the session refuses arrives as an error and changes
// nothing; a rebuild leaves no drift; text edits are tokenized; cancel stops a run; a session is
// unsaved once its trace changed since it was last written.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/session_controller.h"
#include "core/backend/backend_registry.h"
#include "core/eval/ab_compare.h"
#include "core/model/model_loader.h"
#include "tests/testdata.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

constexpr const char* kPrompt = "The cache remembers what the model was told";

bool wait_idle(const SessionController& c) {
    QElapsedTimer t;
    t.start();
    while (!c.isIdle() && t.elapsed() < 60000) QTest::qWait(2);
    return c.isIdle();
}

// The token ids a layer's rows hold, read through the ledger as a view would.
std::vector<int32_t> row_tokens(const Frame& f, int layer) {
    std::vector<int32_t> ids;
    for (int64_t id : f.layers[size_t(layer)].pos2ledger)
        ids.push_back(f.ledger[size_t(id)].token_id);
    return ids;
}

Action delete_at(int pos) { return Action{DeleteAction{pos}, {}}; }

}  // namespace

class TestSessionController : public QObject {
    Q_OBJECT

    // Loads the tiny model and starts the prompt; the frame after that.
    FramePtr started(SessionController& c) {
        c.loadModel("synthetic:tiny", "cpu");
        c.startPrompt(kPrompt);
        if (!wait_idle(c)) qFatal("session did not start");
        return c.lastFrame();
    }

private slots:
    void step_advances_the_tick() {
        SessionController c;
        const FramePtr f0 = started(c);
        QVERIFY(f0);
        QCOMPARE(f0->tick, int64_t(0));
        const int rows0 = f0->layers[0].rows();
        QVERIFY(rows0 > 1);

        QSignalSpy frames(&c, &SessionController::frameReady);
        c.step(1);
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(1));
        c.step(3);
        QVERIFY(wait_idle(c));
        QCOMPARE(frames.count(), 4);  // one Frame per tick
        const FramePtr f = c.lastFrame();
        QCOMPARE(f->tick, int64_t(4));
        for (const LayerFrame& layer : f->layers) QCOMPARE(layer.rows(), rows0 + 4);
        QCOMPARE(frames.last().at(0).value<FramePtr>(), f);
    }

    void refused_actions_show_the_error_and_change_nothing() {
        SessionController c;
        const FramePtr f0 = started(c);
        const int rows = f0->layers[0].rows();
        QSignalSpy errors(&c, &SessionController::errorOccurred);

        c.postCommand(command::Inject{{delete_at(rows + 5)}});
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.last().at(0).toString().contains(QString::number(rows + 5)),
                 qPrintable(errors.last().at(0).toString()));
        QVERIFY(!c.lastFrame()->last_error.empty());
        QCOMPARE(c.lastFrame()->state_hash, f0->state_hash);
        QVERIFY(c.lastFrame()->injected.empty());

        Action out_of_vocabulary{AddAction{f0->model.vocab_size + 7}, {}};
        c.postCommand(command::ApplyNow{{out_of_vocabulary}});
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 2);
        QCOMPARE(c.lastFrame()->state_hash, f0->state_hash);
        QCOMPARE(c.lastFrame()->layers[0].rows(), rows);

        // Nothing of the refused list was queued: the next tick only appends its token.
        c.step(1);
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 2);
        QCOMPARE(c.lastFrame()->last_actions.size(), size_t(1));
        QVERIFY(std::holds_alternative<AddAction>(c.lastFrame()->last_actions[0].op));
        QCOMPARE(c.lastFrame()->layers[0].rows(), rows + 1);
    }

    // A gate sidecar with a NaN weight: the command fails naming the file, the session keeps
    // its policy options and goes on; a good gate of another model's shape is refused by
    // smartkv with both named, and the session keeps its proposer.
    void a_bad_gate_is_refused_naming_the_file_and_the_session_goes_on() {
        SessionController c;
        const FramePtr f0 = started(c);
        QSignalSpy errors(&c, &SessionController::errorOccurred);
        const QString bad = QString::fromStdString(test::testdata_path("gate/bad_nan.gate.gguf"));
        c.setGate(bad);
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.last().at(0).toString().contains(bad),
                 qPrintable(errors.last().at(0).toString()));
        QCOMPARE(c.lastFrame()->policy, f0->policy);
        QCOMPARE(c.lastFrame()->state_hash, f0->state_hash);

        const QString other = QString::fromStdString(test::testdata_path("gate/ref.gate.gguf"));
        c.setGate(other);  // a readable gate: taken (manual ignores it)
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QCOMPARE(QString::fromStdString(c.lastFrame()->policy.gate), other);
        c.postCommand(
            command::SetProposer{"smartkv"});  // 2 layers of input 8: not synthetic:tiny's shape
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 2);
        QVERIFY2(errors.last().at(0).toString().contains("ref.gate.gguf"),
                 qPrintable(errors.last().at(0).toString()));
        QCOMPARE(c.lastFrame()->proposer, std::string("manual"));
        c.step(2);
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(2));
    }

    // A/B on: every Frame carries both sides on the session's tokens, B's budget as given; an
    // unknown policy B is refused and A/B stays as it was; off: no A/B in the Frames.
    void ab_mode_follows_the_session_until_turned_off() {
        SessionController c;
        c.loadModel("synthetic:tiny", "cpu");
        c.postCommand(command::SetProposer{"streaming-llm"});
        c.startPrompt(kPrompt);
        c.step(2);
        QVERIFY(wait_idle(c));
        QVERIFY(!c.lastFrame()->ab);
        PolicyOptions b;
        b.budget = {1, 3, 2};
        c.startAb("h2o", b);
        c.step(3);
        QVERIFY(wait_idle(c));
        const FramePtr f = c.lastFrame();
        QVERIFY(f->ab);
        QCOMPARE(f->ab->a.name, std::string("streaming-llm"));
        QCOMPARE(f->ab->b.name, std::string("h2o"));
        QCOMPARE(f->ab->b.options.budget, b.budget);
        QCOMPARE(f->ab->nll_a.scored, int64_t(5));
        QCOMPARE(f->ab->tokens.size(), f->ledger.size());
        for (int l = 0; l < int(f->layers.size()); ++l) {
            // A is the session's policy on its tokens: A keeps the session's rows; B keeps
            // S + B + W.
            const AbCounts& counts = f->ab->counts[size_t(l)];
            QCOMPARE(counts.a, f->layers[size_t(l)].rows());
            QCOMPARE(counts.b, 1 + 3 + 2);
        }
        QSignalSpy errors(&c, &SessionController::errorOccurred);
        c.startAb("no-such-policy", b);
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QCOMPARE(c.lastFrame()->ab->b.name, std::string("h2o"));
        c.stopAb();
        c.step(1);
        QVERIFY(wait_idle(c));
        QVERIFY(!c.lastFrame()->ab);
    }

    void rebuild_makes_drift_zero() {
        SessionController c;
        started(c);
        c.step(3);
        c.postCommand(command::ApplyNow{{Action{ReplacePairAction{3, 4, {100, 200, 300}}, {}}}});
        c.postCommand(command::Drift{});
        QVERIFY(wait_idle(c));
        const FramePtr edited = c.lastFrame();
        QVERIFY(edited->drift_measured);
        // The rows after the edit still hold K/V computed with the old context.
        QVERIFY2(edited->max_drift > 1e-3f, qPrintable(QString::number(edited->max_drift)));
        QVERIFY(edited->first_diverging_layer >= 0);

        c.postCommand(command::Rebuild{});
        c.postCommand(command::Drift{});
        QVERIFY(wait_idle(c));
        const FramePtr rebuilt = c.lastFrame();
        QVERIFY(rebuilt->drift_measured);
        QVERIFY2(rebuilt->max_drift <= 1e-6f, qPrintable(QString::number(rebuilt->max_drift)));
        QCOMPARE(rebuilt->first_diverging_layer, -1);
        for (const LayerFrame& layer : rebuilt->layers)
            for (float d : layer.drift) QVERIFY(d <= 1e-6f);
        QCOMPARE(rebuilt->layers[0].pos2ledger, edited->layers[0].pos2ledger);
    }

    void text_edits_are_tokenized() {
        SessionController c;
        const FramePtr f0 = started(c);
        const std::vector<int32_t> text =
            load_model("synthetic:tiny")->tokenizer.encode(" remembered", false);
        QVERIFY(!text.empty());

        // replace rows 2 and 3 by the text
        std::vector<int32_t> expected = row_tokens(*f0, 0);
        expected.erase(expected.begin() + 2, expected.begin() + 4);
        expected.insert(expected.begin() + 2, text.begin(), text.end());
        c.textAction(TextActionKind::ReplacePair, 0, 2, 3, " remembered", true);
        QVERIFY(wait_idle(c));
        const FramePtr f1 = c.lastFrame();
        for (int l = 0; l < int(f1->layers.size()); ++l) QCOMPARE(row_tokens(*f1, l), expected);

        // insert the text before row 5: the records around it stay, the new ones go between
        expected.insert(expected.begin() + 5, text.begin(), text.end());
        c.textAction(TextActionKind::Insert, 1, 5, -1, " remembered",
                     false);  // queued, then one tick
        c.step(1);
        QVERIFY(wait_idle(c));
        const FramePtr f2 = c.lastFrame();
        std::vector<int32_t> got = row_tokens(*f2, 0);
        got.pop_back();  // the token the tick generated
        QCOMPARE(got, expected);
        const SharedRows<int64_t>& ids1 = f1->layers[0].pos2ledger;
        const SharedRows<int64_t>& ids2 = f2->layers[0].pos2ledger;
        QCOMPARE(ids2[4], ids1[4]);
        QCOMPARE(ids2[5 + text.size()], ids1[5]);

        QSignalSpy errors(&c, &SessionController::errorOccurred);
        const uint64_t hash = c.lastFrame()->state_hash;
        c.textAction(TextActionKind::Insert, 0, 0, -1, "x", true);  // nothing goes before BOS
        c.textAction(TextActionKind::ReplacePair, 0, 1, 9999, "x", true);
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 2);
        QVERIFY2(errors.first().at(0).toString().contains("BOS"),
                 qPrintable(errors.first().at(0).toString()));
        QCOMPARE(c.lastFrame()->state_hash, hash);

        // two rows that are not adjacent: both go, the text takes the first one's place and the
        // rows between stay after it (the JSON replace_pair's meaning, one rule set)
        const std::vector<int32_t> x = load_model("synthetic:tiny")->tokenizer.encode("x", false);
        const std::vector<int64_t> before = c.lastFrame()->layers[0].pos2ledger.to_vector();
        std::vector<int32_t> distant = row_tokens(*c.lastFrame(), 0);
        distant.erase(distant.begin() + 5);
        distant.erase(distant.begin() + 1);
        distant.insert(distant.begin() + 1, x.begin(), x.end());
        c.textAction(TextActionKind::ReplacePair, 0, 5, 1, "x", true);
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 2);
        QCOMPARE(row_tokens(*c.lastFrame(), 0), distant);
        const std::vector<int64_t> after = c.lastFrame()->layers[0].pos2ledger.to_vector();
        for (int r = 2; r < 5; ++r) QCOMPARE(after[size_t(r) - 1 + x.size()], before[size_t(r)]);
    }

    // File > Save trace keeps the file up to date: every Frame of a run arrives with its tick
    // already on disk (a kill then loses nothing the window showed), and undo rewrites it.
    void an_autosaved_trace_follows_every_tick() {
        SessionController c;
        started(c);
        const QString dir = QDir::tempPath() + "/kvw_autosave_trace_test";
        QDir(dir).removeRecursively();
        QVERIFY(QDir().mkpath(dir));
        const QString path = dir + "/live.ndjson";
        c.autosaveTrace(path);
        QVERIFY(wait_idle(c));
        const auto lines_on_disk = [&] {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? file.readAll().count('\n') : -1;
        };
        QCOMPARE(lines_on_disk(), 2);                     // header, start
        std::vector<std::pair<int64_t, qsizetype>> seen;  // (tick, lines on disk) per frame
        connect(&c, &SessionController::frameReady, this,
                [&](const FramePtr& f) { seen.emplace_back(f->tick, lines_on_disk()); });
        c.step(6);
        QVERIFY(wait_idle(c));
        QVERIFY(seen.size() >= 2);
        for (const auto& [tick, lines] : seen) QVERIFY(lines >= 2 + tick);
        QCOMPARE(lines_on_disk(), 2 + 6);
        c.undo(2);
        QVERIFY(wait_idle(c));
        QCOMPARE(lines_on_disk(), 2 + 4);
        QCOMPARE(Trace::read(path.toStdString()).events().back().at("tick").get<int>(), 4);
        QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden), QStringList{"live.ndjson"});
        QDir(dir).removeRecursively();
    }

    // A trace saved by one window and opened in another gives the same session: same tick, same
    // state hash (which covers ledger, maps and cache bytes), same ledger; a malformed trace
    // fails with the file named and the session it would have replaced stays as it was.
    void an_opened_trace_is_the_session_that_saved_it() {
        SessionController a;
        started(a);
        a.postCommand(command::Inject{{delete_at(3)}});
        a.step(4);
        a.postCommand(command::ApplyNow{{delete_at(1)}});
        a.step(2);
        const QString dir = QDir::tempPath() + "/kvw_open_trace_test";
        QDir(dir).removeRecursively();
        QVERIFY(QDir().mkpath(dir));
        a.saveTrace(dir + "/session.ndjson");
        QVERIFY(wait_idle(a));
        const FramePtr saved = a.lastFrame();

        SessionController b;
        const FramePtr before = started(b);
        b.step(1);
        QVERIFY(wait_idle(b));
        b.openTrace(dir + "/session.ndjson");
        QVERIFY(wait_idle(b));
        const FramePtr opened = b.lastFrame();
        QCOMPARE(opened->tick, saved->tick);
        QCOMPARE(opened->state_hash, saved->state_hash);
        QCOMPARE(opened->ledger.size(), saved->ledger.size());
        for (int l = 0; l < int(saved->layers.size()); ++l)
            QCOMPARE(row_tokens(*opened, l), row_tokens(*saved, l));

        QFile bad(dir + "/bad.ndjson");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"event\":\"header\",\"model\":\"synthetic:tiny\"}\n{\"event\":");
        bad.close();
        QSignalSpy errors(&b, &SessionController::errorOccurred);
        b.openTrace(dir + "/bad.ndjson");
        QVERIFY(wait_idle(b));
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.first().at(0).toString().contains("bad.ndjson"),
                 qPrintable(errors.first().at(0).toString()));
        QCOMPARE(b.lastFrame()->state_hash, saved->state_hash);
        QCOMPARE(b.lastFrame()->tick, saved->tick);
        QVERIFY(before->tick != saved->tick);

        // Told another backend (kv-workbench --trace FILE --backend NAME), it replays there; of
        // other numerics than the recorded cpu, by its tokens, which this F32 model keeps.
        std::string why;
        if (backend_available("cpu:fast", why)) {
            QSignalSpy failed(&b, &SessionController::errorOccurred);
            b.openTrace(dir + "/session.ndjson", {}, "cpu:fast");
            QVERIFY(wait_idle(b));
            QCOMPARE(failed.count(), 0);
            QCOMPARE(b.lastFrame()->backend, std::string("cpu:fast"));
            QCOMPARE(b.lastFrame()->tick, saved->tick);
        }
        QDir(dir).removeRecursively();
    }

    void cancel_stops_a_run_and_later_commands_still_run() {
        SessionController c;
        started(c);
        c.step(1500);
        c.cancel();
        QVERIFY(wait_idle(c));
        const int64_t tick = c.lastFrame()->tick;
        QVERIFY2(tick < 1500, qPrintable(QString::number(tick)));
        c.step(2);
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, tick + 2);
    }

    void errors_arrive_as_signals_and_keep_the_session() {
        SessionController c;
        QSignalSpy errors(&c, &SessionController::errorOccurred);
        c.startPrompt("before any model");
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QVERIFY(!c.lastFrame());

        const FramePtr f0 = started(c);
        c.loadModel("/no/such/model.gguf", "cpu");
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 2);
        QVERIFY(errors.last().at(0).toString().contains("/no/such/model.gguf"));
        c.step(1);
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->model.source, f0->model.source);
        QCOMPARE(c.lastFrame()->tick, int64_t(1));
    }

    // "Not saved", what Quit asks about: a session just made (a model with its prompt, a fork)
    // holds nothing to lose; a command changes its trace; a trace written (read back here: its
    // ticks) is saved until the next command; a write that fails keeps it unsaved.
    void unsaved_means_the_trace_changed_since_it_was_written() {
        QTemporaryDir dir;
        SessionController c;
        QSignalSpy turns(&c, &SessionController::unsavedChanged);
        c.loadModel("synthetic:tiny", "cpu", kPrompt);
        QVERIFY(wait_idle(c));
        QVERIFY(!c.hasUnsavedChanges());
        c.step(2);
        QVERIFY(wait_idle(c));
        QVERIFY(c.hasUnsavedChanges());

        QSignalSpy errors(&c, &SessionController::errorOccurred);
        c.saveTrace(dir.path());  // a folder: the write fails
        QVERIFY(wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QVERIFY(c.hasUnsavedChanges());

        const QString path = dir.filePath("session.ndjson");
        c.saveTrace(path);
        QVERIFY(wait_idle(c));
        QVERIFY(!c.hasUnsavedChanges());
        QCOMPARE(test::ticks_in_trace(path), 2);

        c.step(1);
        QVERIFY(wait_idle(c));
        QVERIFY(c.hasUnsavedChanges());
        QCOMPARE(turns.count(), 3);  // unsaved, saved, unsaved

        SessionController fork;
        c.forkInto(1, &fork);
        QVERIFY(wait_idle(c));
        QTRY_VERIFY(fork.lastFrame() != nullptr);
        QVERIFY(wait_idle(fork));
        QVERIFY(!fork.hasUnsavedChanges());
        fork.step(1);
        QVERIFY(wait_idle(fork));
        QVERIFY(fork.hasUnsavedChanges());
    }
};

QTEST_MAIN(TestSessionController)
#include "test_session_controller.moc"
