#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <QObject>
#include <QString>

#include "app/gui/command_outcome.h"
#include "core/eval/ab_run.h"
#include "core/session/log_channel.h"
#include "core/session/session.h"
#include "core/session/trace_file.h"
#include "widgets/frame_view.h"
#include "widgets/timeline_history.h"

namespace kvw {

class SessionWorker;

// One command for the worker thread. `epoch` is the controller's cancel epoch when the command
// was posted: cancel() bumps the epoch, so a command posted before it is skipped and a running
// one stops at its next check (Hotspot's job ids, STYLE.md).
struct SessionJob {
    QString what;  // for the busy indicator and error messages: "step 8", "load synthetic:tiny"
    uint64_t epoch = 0;
    std::function<void(SessionWorker&)> body;
    // When set: told on the worker thread what became of the job, after its Frame was published.
    std::function<void(const CommandOutcome&)> outcome = {};
};

// Lives on the SessionController's worker thread and owns the Session there: nothing else in the
// program touches the Session (ARCHITECTURE §6). Runs one job at a time, turns every exception
// into failed(), and publishes a fresh Frame after every job that had a session.
class SessionWorker : public QObject {
    Q_OBJECT
public:
    // Every job runs with `channel` as its thread's log channel (core/session/log_channel.h).
    SessionWorker(const std::atomic<uint64_t>& epoch, LogChannel channel);
    ~SessionWorker() override;

    // Runs on the worker thread: the controller posts it with a queued invocation.
    void execute(const SessionJob& job);

    // ---- for job bodies (worker thread) ---------------------------------------------------
    // The session; throws SessionNotLoaded when there is none yet.
    Session& session();
    // The session's trace as it is now counts as saved (SessionController::hasUnsavedChanges).
    void replaceSession(std::unique_ptr<Session> session);
    // Replaces the session with the one `make` builds (a model load, an opened trace) or keeps
    // the current one exactly as it was: when `make` throws (rethrown, saying the session was
    // kept) or when a cancel came while it ran (a load cannot stop half-way; noted as `what`
    // cancelled). True when the session was replaced.
    bool replaceSessionWith(const std::string& what,
                            const std::function<std::unique_ptr<Session>()>& make);
    // A/B mode (ARCHITECTURE §12): from now on every Frame carries the session's policy (A)
    // against `b` on the session's tokens. Throws (nothing changes) when B cannot be made.
    void startAb(const AbPolicy& b);
    void stopAb() { ab_.reset(); }
    // True once cancel() ran after the current job was posted.
    bool cancelled() const { return job_epoch_ != epoch_.load(); }
    // A Frame of the session now, to frameReady, after bringing the autosaved trace up to it:
    // every state the window shows has its trace on disk.
    void publish();
    // From now on the session's trace is kept in `path` as it grows (TraceFile: a line per
    // event, written as each published state, every tick of a run included, reaches the
    // window), the whole file replaced after an undo or a new session. FileWriteError.
    void autosaveTrace(const std::string& path);
    // A Frame of a past tick (ARCHITECTURE §16), to pastFrameReady; the live one follows as
    // after every job.
    void publishPast(FramePtr frame) { emit pastFrameReady(std::move(frame)); }
    void publishHistory(TimelineHistoryPtr history) { emit historyReplayed(std::move(history)); }
    void reportProgress(int done, int total) { emit progress(done, total); }
    // Logs `message` and hands it to noted() (the status bar shows it).
    void note(const std::string& message);
    // The session's trace as it is now was written to a file.
    void markTraceSaved();

signals:
    void started(QString what);
    void progress(int done, int total);  // total 0: unknown (a command starts so)
    void frameReady(kvw::FramePtr frame);
    void pastFrameReady(kvw::FramePtr frame);
    void historyReplayed(kvw::TimelineHistoryPtr history);
    void failed(QString message);
    void noted(QString message);
    // After every job, before finished(): whether the trace differs from the one last saved.
    void unsavedChanged(bool unsaved);
    void finished();

private:
    // "the session stays as it was (tick N)", or "no session was loaded before" when none.
    std::string keptSessionText() const;
    const std::atomic<uint64_t>& epoch_;
    const LogChannel channel_;
    uint64_t job_epoch_ = 0;
    // Brings the A/B run up to the session (made again when the session's policy or model
    // changed); null, and A/B off with an error, when it cannot follow.
    std::shared_ptr<const AbFrame> followAb();

    // Writes the session's new trace events to the autosave; a write that fails stops the
    // autosave with an error saying why (it would fail on every tick).
    void syncAutosave();

    // A trace told apart by its length and its events' fingerprint (Trace::prefix_hash).
    struct TraceMark {
        size_t events = 0;
        uint64_t hash = 0;
        bool operator==(const TraceMark&) const = default;
    };
    TraceMark traceMark() const;

    std::unique_ptr<Session> session_;
    std::unique_ptr<AbRun> ab_;
    std::unique_ptr<TraceFile> autosave_;
    TraceMark saved_;  // the trace as last saved, or as the session was made
};

}  // namespace kvw
