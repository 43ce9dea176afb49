#include "app/gui/session_worker.h"

#include <exception>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/session/error_message.h"
#include "core/session/refused_setting.h"

namespace kvw {

namespace {

// A command that needs a model came before any model was loaded.
class SessionNotLoaded : public std::logic_error {
public:
    SessionNotLoaded() : std::logic_error("no model loaded yet: load one first") {}
};

}  // namespace

SessionWorker::SessionWorker(const std::atomic<uint64_t>& epoch, LogChannel channel)
    : epoch_(epoch), channel_(channel) {}

SessionWorker::~SessionWorker() = default;

Session& SessionWorker::session() {
    if (!session_) throw SessionNotLoaded();
    return *session_;
}

void SessionWorker::replaceSession(std::unique_ptr<Session> session) {
    session_ = std::move(session);
    // A session just made holds nothing the user did since: a model and its prompt, a trace
    // that is on disk, a fork of a session that stays.
    markTraceSaved();
}

SessionWorker::TraceMark SessionWorker::traceMark() const {
    if (!session_) return {};
    const Trace& trace = session_->trace();
    return {trace.events().size(), trace.prefix_hash(trace.events().size())};
}

void SessionWorker::markTraceSaved() { saved_ = traceMark(); }

bool SessionWorker::replaceSessionWith(const std::string& what,
                                       const std::function<std::unique_ptr<Session>()>& make) {
    std::unique_ptr<Session> session;
    try {
        session = make();
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) + "; " + keptSessionText());
    }
    if (cancelled()) {
        note(what + " cancelled; " + keptSessionText());
        return false;
    }
    replaceSession(std::move(session));
    return true;
}

void SessionWorker::note(const std::string& message) {
    spdlog::info("{}", message);
    emit noted(QString::fromStdString(message));
}

std::string SessionWorker::keptSessionText() const {
    if (!session_) return "no session was loaded before";
    return "the session stays as it was (tick " + std::to_string(session_->tick()) + ")";
}

namespace {

AbPolicy policy_of(const Session& s) { return {s.options().proposer, s.options().policy}; }

}  // namespace

void SessionWorker::startAb(const AbPolicy& b) {
    Session& s = session();
    ab_ = std::make_unique<AbRun>(s.shared_model(), s.options(), policy_of(s), b);
}

std::shared_ptr<const AbFrame> SessionWorker::followAb() {
    try {
        // Both sides run where the session runs: a backend switch starts them again there.
        if (ab_->policy_a() != policy_of(*session_) || &ab_->model() != &session_->model() ||
            ab_->a().options().backend != session_->options().backend)
            ab_ = std::make_unique<AbRun>(session_->shared_model(), session_->options(),
                                          policy_of(*session_), ab_->policy_b());
        ab_->follow(token_stream(*session_));
        return ab_->frame();
    } catch (const std::exception& e) {
        ab_.reset();
        const std::string message = std::string("A/B turned off: ") + e.what();
        spdlog::warn("{}", message);
        emit failed(QString::fromStdString(message));
        return nullptr;
    }
}

void SessionWorker::autosaveTrace(const std::string& path) {
    autosave_ = std::make_unique<TraceFile>(path);
    autosave_->sync(session().trace());
    markTraceSaved();
}

void SessionWorker::syncAutosave() {
    if (!autosave_) return;
    try {
        autosave_->sync(session_->trace());
        markTraceSaved();  // the file holds every event: closing loses nothing
    } catch (const std::exception& e) {
        autosave_.reset();
        const std::string message = std::string("trace autosave stopped: ") + e.what();
        spdlog::error("{}", message);
        emit failed(QString::fromStdString(message));
    }
}

void SessionWorker::publish() {
    if (!session_) return;
    syncAutosave();
    const std::shared_ptr<Frame> frame = session_->frame();
    if (ab_) frame->ab = followAb();
    emit frameReady(frame);
}

void SessionWorker::execute(const SessionJob& job) {
    const LogChannelScope channel(channel_);  // the session's lines go to its window's log
    job_epoch_ = job.epoch;
    if (cancelled()) {  // cancelled before it started: nothing to do, nothing to publish
        const std::string message =
            job.what.toStdString() + ": skipped (cancelled before it started)";
        note(message);
        if (job.outcome) job.outcome({QString::fromStdString(message), {}});
        emit finished();
        return;
    }
    emit started(job.what);
    CommandOutcome outcome;
    try {
        job.body(*this);
    } catch (const std::exception& e) {
        const std::string message = with_context(job.what.toStdString(), e.what());
        spdlog::warn("{}", message);
        emit failed(QString::fromStdString(message));
        // Shown beside the field it is about: the command is plain there.
        outcome = {QString::fromStdString(e.what()), QString::fromStdString(refused_setting(e))};
    }
    // The frame also carries what went wrong (Frame::last_error) to the views.
    publish();
    if (job.outcome) job.outcome(outcome);
    emit unsavedChanged(traceMark() != saved_);
    emit finished();
}

}  // namespace kvw
