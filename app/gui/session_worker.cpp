#include "app/gui/session_worker.h"

#include <exception>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/session/error_message.h"

namespace kvw {

namespace {

// A command that needs a model came before any model was loaded.
class SessionNotLoaded : public std::logic_error {
public:
    SessionNotLoaded() : std::logic_error("no model loaded yet: load one first") {}
};

}  // namespace

SessionWorker::SessionWorker(const std::atomic<uint64_t>& epoch) : epoch_(epoch) {}

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
        if (ab_->policy_a() != policy_of(*session_) || &ab_->model() != &session_->model())
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

void SessionWorker::publish() {
    if (!session_) return;
    const std::shared_ptr<Frame> frame = session_->frame();
    if (ab_) frame->ab = followAb();
    emit frameReady(frame);
}

void SessionWorker::execute(const SessionJob& job) {
    job_epoch_ = job.epoch;
    if (cancelled()) {  // cancelled before it started: nothing to do, nothing to publish
        note(job.what.toStdString() + ": skipped (cancelled before it started)");
        emit finished();
        return;
    }
    emit started(job.what);
    try {
        job.body(*this);
    } catch (const std::exception& e) {
        const std::string message = with_context(job.what.toStdString(), e.what());
        spdlog::warn("{}", message);
        emit failed(QString::fromStdString(message));
    }
    // The frame also carries what went wrong (Frame::last_error) to the views.
    publish();
    emit unsavedChanged(traceMark() != saved_);
    emit finished();
}

}  // namespace kvw
