#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include <QObject>
#include <QString>
#include <QThread>

#include "app/gui/command_outcome.h"
#include "core/session/command/session_command.h"
#include "core/session/log_channel.h"
#include "core/session/session.h"
#include "core/session/text_action.h"
#include "core/sweep/sweep_plan.h"
#include "widgets/frame_view.h"
#include "widgets/timeline_history.h"

namespace kvw {

class SessionWorker;

// The one way the UI reaches the Session (ARCHITECTURE §6, RenderDoc's replay manager in
// STYLE.md): a worker thread owns it; every public slot posts a command there and returns at
// once; Frames, progress and errors come back by queued signal. Commands run one at a time in
// the order they were posted. Errors never throw into the UI: they arrive as errorOccurred and
// in the next Frame's last_error.
class SessionController : public QObject {
    Q_OBJECT
public:
    explicit SessionController(QObject* parent = nullptr);
    // Cancels what runs, then waits for the worker thread to finish its current tick.
    ~SessionController() override;

    // True when no posted command is queued or running (UI thread).
    bool isIdle() const { return pending_ == 0; }
    // The newest Frame received (null before the first).
    FramePtr lastFrame() const { return last_frame_; }
    // The log channel of this controller's session (core/session/log_channel.h): its worker
    // logs on it, and so does the window that drives it; that window's log shows it alone.
    LogChannel logChannel() const { return log_channel_; }

    // The settings commands a dialog waits on: `done` (when given) hears on the UI thread
    // whether the session took the values, after their Frame; a refusal changes nothing.
    // A selective policy's budgets (and the random policy's seed): Session::set_policy_options,
    // the proposer made again with the gate it had.
    void setBudget(const PolicyBudget& budget, quint64 seed, OutcomeHandler done = {});
    // One session command (ARCHITECTURE §7 "Commands": an edit, a rebuild, a policy, layout,
    // K/V type, RoPE, guard, wLOD or gist-net change, ...), run on the worker as replay runs it;
    // it records its own trace event. `done` as for setBudget (a layout dialog waits on it).
    void postCommand(kvw::SessionCommand command, OutcomeHandler done = {});
    // True when the session's trace changed since it was last written (saveTrace, a bundle)
    // or, never written, since the session was made (a model loaded with its prompt, a trace
    // opened, a fork adopted): what closing the window would lose. As of the last command
    // finished.
    bool hasUnsavedChanges() const { return unsaved_; }
    // Runs the event loop until every command posted so far is done (UI thread).
    void waitUntilIdle();

public slots:
    // Replaces the session with one on this model and backend ("cpu", "cuda", "auto") and, when
    // `prompt` is not empty, starts it there; both in one command, so that the session is
    // replaced only when both succeed. On failure, or when cancelled while loading, the previous
    // session stays exactly as it was (tick, edits, trace) and a log line and noticeOccurred
    // (or errorOccurred) say so.
    void loadModel(const QString& spec, const QString& backend, const QString& prompt = {});
    // Replaces the session with the one a recorded trace (`kvw run --trace`, File → Save trace)
    // leaves: its header's model and backend (or `model` / `backend` when given, as kvw replay
    // --model / --backend; a backend of other numerics compares no state hashes), every event
    // repeated, recorded outcomes compared. A recorded outcome that differs is an error
    // (errorOccurred saying DIFFERENT, as kvw replay exits 1), the replayed session open to be
    // looked at. Fails like loadModel: a malformed trace or a model that does not load keeps
    // the session as it was.
    // Once it opened, historyReplayed carries the timeline of every tick it repeated (the
    // history bar then reaches each of them, ARCHITECTURE §16).
    void openTrace(const QString& path, const QString& model = {}, const QString& backend = {});
    // Replaces the session with cell `cell` of a sweep's plan at the start of its text: the
    // plan's model and the cell's configuration (cell_session_options), the first chunk's
    // prompt prefilled as the sweep's scorer prefills it. Fails like loadModel.
    void openSweepCell(std::shared_ptr<const kvw::SweepPlan> plan, qint64 cell);
    // The same on a model loaded already (tests, benchmarks: shapes no spec names).
    void adoptModel(std::shared_ptr<const kvw::Model> model, const kvw::SessionOptions& options);
    // A session made elsewhere (a fork) becomes this controller's.
    void adoptSession(std::shared_ptr<kvw::Session> session);
    // Forgets the sequence and prefills the prompt.
    void startPrompt(const QString& prompt);
    // The same with the prompt as one user turn in the model's chat template (today's date for
    // strftime_now). A model without a template, or a template that cannot be rendered, is an
    // error naming why, and the session keeps its sequence.
    void startChatPrompt(const QString& prompt);
    // N ticks, a Frame after each; cancel() (pause) stops after the current tick.
    void step(int ticks);
    // Skips the commands not started yet and stops a running step(N) after its current tick.
    void cancel();
    // A view's text action (core/session/text_action.h has the rules): the text is tokenized
    // on the worker, then injected or applied.
    void textAction(kvw::TextActionKind kind, int layer, int row1, int row2, const QString& text,
                    bool applyNow);
    // The smartkv gate sidecar: read and checked at once (a bad file is an error naming it, and
    // the session keeps its gate); the proposer is made again with it.
    void setGate(const QString& path);
    // A/B mode (ARCHITECTURE §12): policy B with its budgets beside the session's own policy,
    // on the session's tokens; every Frame then carries both. stopAb() ends it.
    void startAb(const QString& policy, const kvw::PolicyOptions& options);
    void stopAb();
    // Writes the session's trace (NDJSON, `kvw replay` reads it) to `path` when the worker
    // reaches this command, then logs and shows `done` (by default "trace written: PATH"), or
    // `problem` as an error when one is given (a session bundle's files that could not be
    // written: said once the bundle is complete, so that the trace's command does not clear it
    // from the status bar).
    void saveTrace(const QString& path, const QString& done = {}, const QString& problem = {});
    // Writes it and keeps it there as the session goes on (File ▸ Save trace): each tick and
    // command reaches the file as it happens (SessionWorker::autosaveTrace).
    void autosaveTrace(const QString& path);
    // History (ARCHITECTURE §15): each logs where the session now is and shows it in the status
    // bar; a refusal (nothing to undo, an unknown name) is an error and changes nothing.
    void undo(int steps = 1);
    void redo(int steps = 1);
    void snapshot(const QString& name);
    void restore(const QString& name);
    // Session::fork(tick) made on this controller's worker, then handed to `target`'s worker
    // (another controller, driving another window): `target` then shows the fork.
    void forkInto(qint64 tick, kvw::SessionController* target);
    // The Frame the current sequence had at `tick` (ARCHITECTURE §16): the trace repeated up to
    // that tick in a scratch session (Session::fork), whose Frame comes as pastFrameReady; the
    // session itself is not touched. HistoryError (a tick never reached) as errorOccurred.
    void showTick(qint64 tick);

signals:
    void frameReady(kvw::FramePtr frame);
    void pastFrameReady(kvw::FramePtr frame);  // showTick's
    // openTrace's: the timeline of every tick the trace repeated, before its last Frame.
    void historyReplayed(kvw::TimelineHistoryPtr history);
    // busy: a command started (what it is) or the queue ran empty (what is empty).
    void busyChanged(bool busy, const QString& what);
    void progressChanged(int done, int total);  // total 0: unknown
    void errorOccurred(const QString& message);
    // Something the user should read that is not an error (a command skipped by a cancel).
    void noticeOccurred(const QString& message);
    void becameIdle();
    // hasUnsavedChanges() turned.
    void unsavedChanged(bool unsaved);

private:
    void post(const QString& what, std::function<void(SessionWorker&)> body,
              OutcomeHandler done = {});
    void jobFinished();

    const LogChannel log_channel_ = new_log_channel();  // before worker_, which takes it
    QThread thread_;
    SessionWorker* worker_;
    std::atomic<uint64_t> epoch_{0};
    int pending_ = 0;
    FramePtr last_frame_;
    bool unsaved_ = false;
};

}  // namespace kvw
