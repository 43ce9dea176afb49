#include "app/gui/session_controller.h"

#include <QEventLoop>
#include <QPointer>

#include <stdexcept>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "app/gui/session_worker.h"
#include "core/chat/chat_prompt.h"
#include "core/eval/perplexity.h"
#include "core/io/regular_file.h"
#include "core/policy/gate/gate_file.h"
#include "core/script/script_session_line.h"
#include "core/session/replay.h"
#include "core/sweep/cell_session.h"

namespace kvw {

namespace {

// Step 4 reports a refused or undone list in its result instead of throwing; the user must see
// it as an error all the same.
void report_tick(const TickResult& result) {
    if (result.rejected) {
        std::string message = "rejected";
        for (const ValidationError& e : result.rejections) message += "; " + e.message;
        throw std::runtime_error(message);
    }
    if (result.aborted)
        throw std::runtime_error("aborted in " + result.failed_primitive + ": " +
                                 result.abort_reason + " (cache rebuilt from the mirror)");
}

// Step 4 now; the log says what happened, as it does for a tick.
void apply_now(Session& session, const ActionList& actions) {
    report_tick(session.apply_now(actions));
    spdlog::info("applied {} action(s) now at tick {}", actions.size(), session.tick());
}

// What the busy indicator and an error say the command is: the word a script writes it with
// ("kv-types", "prompt"), or its event name in words where no script line says it.
QString command_label(const SessionCommand& command) {
    if (const std::optional<std::string> line = script_line(command))
        return QString::fromStdString(line->substr(0, line->find(' ')));
    const std::string_view name = event_name(command);
    return QString::fromUtf8(name.data(), qsizetype(name.size())).replace('_', ' ');
}

// Runs a posted command; the log confirms the settings whose effect is not in the views.
void run_posted(const SessionCommand& command, Session& s) {
    if (const auto* now = std::get_if<command::ApplyNow>(&command)) {
        apply_now(s, now->actions);  // Step 4 reports a refusal in its result: an error here
        return;
    }
    apply_command(command, s);
    if (const auto* c = std::get_if<command::SetProposer>(&command)) {
        spdlog::info("policy: {}", c->name);
    } else if (std::holds_alternative<command::SetLayout>(command)) {
        spdlog::info("cache layout: {}, {} rows per layer (rows copied)",
                     cache_layout_name(s.options().layout), s.state().cache().capacity());
    } else if (const auto* r = std::get_if<command::SetRopePolicy>(&command)) {
        spdlog::info("RoPE policy: {} (phases re-derived, cache rebuilt)",
                     rope_policy_name(r->policy));
    } else if (const auto* g = std::get_if<command::SetGuard>(&command)) {
        spdlog::info("guard {}: invariants {} after every primitive", g->on ? "on" : "off",
                     g->on ? "re-checked" : "not re-checked");
    }
}

}  // namespace

SessionController::SessionController(QObject* parent)
    : QObject(parent), worker_(new SessionWorker(epoch_, log_channel_)) {
    qRegisterMetaType<kvw::FramePtr>();
    qRegisterMetaType<kvw::ActionList>();
    qRegisterMetaType<kvw::TimelineHistoryPtr>();
    thread_.setObjectName("session");
    worker_->moveToThread(&thread_);
    connect(worker_, &SessionWorker::frameReady, this, [this](FramePtr frame) {
        last_frame_ = frame;
        emit frameReady(std::move(frame));
    });
    connect(worker_, &SessionWorker::pastFrameReady, this, &SessionController::pastFrameReady);
    connect(worker_, &SessionWorker::historyReplayed, this, &SessionController::historyReplayed);
    connect(worker_, &SessionWorker::started, this,
            [this](const QString& what) { emit busyChanged(true, what); });
    connect(worker_, &SessionWorker::progress, this, &SessionController::progressChanged);
    connect(worker_, &SessionWorker::failed, this, &SessionController::errorOccurred);
    connect(worker_, &SessionWorker::noted, this, &SessionController::noticeOccurred);
    connect(worker_, &SessionWorker::unsavedChanged, this, [this](bool unsaved) {
        if (unsaved == unsaved_) return;
        unsaved_ = unsaved;
        emit unsavedChanged(unsaved);
    });
    connect(worker_, &SessionWorker::finished, this, &SessionController::jobFinished);
    thread_.start();
}

SessionController::~SessionController() {
    cancel();
    thread_.quit();
    thread_.wait();
    delete worker_;  // the thread has ended: deleting it from here is safe
}

void SessionController::post(const QString& what, std::function<void(SessionWorker&)> body,
                             OutcomeHandler done) {
    ++pending_;
    SessionJob job{what, epoch_.load(), std::move(body)};
    if (done)  // told on the worker thread, heard on this one, after the job's Frame
        job.outcome = [this, done = std::move(done)](const CommandOutcome& outcome) {
            QMetaObject::invokeMethod(
                this, [done, outcome] { done(outcome); }, Qt::QueuedConnection);
        };
    QMetaObject::invokeMethod(
        worker_, [worker = worker_, job = std::move(job)] { worker->execute(job); },
        Qt::QueuedConnection);
}

void SessionController::postCommand(SessionCommand command, OutcomeHandler done) {
    // Named before the job takes the command: arguments are evaluated in no fixed order.
    const QString label = command_label(command);
    post(
        label,
        [command = std::move(command)](SessionWorker& w) { run_posted(command, w.session()); },
        std::move(done));
}

void SessionController::jobFinished() {
    if (--pending_ > 0) return;
    emit busyChanged(false, {});
    emit becameIdle();
}

void SessionController::cancel() { ++epoch_; }

void SessionController::waitUntilIdle() {
    if (isIdle()) return;
    QEventLoop loop;
    connect(this, &SessionController::becameIdle, &loop, &QEventLoop::quit);
    loop.exec();
}

void SessionController::loadModel(const QString& spec, const QString& backend,
                                  const QString& prompt) {
    post("load " + spec, [spec = spec.toStdString(), backend = backend.toStdString(),
                          prompt = prompt.toStdString()](SessionWorker& w) {
        SessionOptions options;
        options.model = spec;
        options.backend = backend;
        w.replaceSessionWith("load " + spec, [&] {
            auto session = std::make_unique<Session>(options);
            if (!prompt.empty()) session->start(prompt);
            return session;
        });
    });
}

void SessionController::openTrace(const QString& path, const QString& model,
                                  const QString& backend) {
    post("open trace " + path, [path = path.toStdString(), model = model.toStdString(),
                                backend = backend.toStdString()](SessionWorker& w) {
        ReplayReport report;
        // The timeline a run of these ticks would have drawn, point by point; handed over only
        // when the trace opened (a failed one keeps the window's timeline too).
        auto history = std::make_shared<TimelineHistory>();
        std::string cut;  // "trace ends at tick N (incomplete last line L)" when a kill cut it
        const bool opened = w.replaceSessionWith("open trace " + path, [&] {
            const Trace trace = Trace::read(path);
            cut = trace.cut_note();
            ReplayTarget target;
            if (!model.empty()) target.model = model;
            if (!backend.empty()) target.backend = backend;
            return session_replayed(trace, target, report, [&](const Session& s) {
                if (s.started()) history->add(*s.frame());
            });
        });
        if (!opened) return;
        w.publishHistory(std::move(history));
        std::string outcome = "opened " + path + ": " + std::to_string(report.events) +
                              " events replayed, now at tick " + std::to_string(w.session().tick());
        if (const std::string skipped = hashes_not_compared(report); !skipped.empty())
            outcome += " (" + skipped + ")";
        if (report.unhashed_events)
            outcome += " (" + std::to_string(report.unhashed_events) +
                       " events without a state hash: their states not checked)";
        if (report.ok()) {
            outcome += ", every recorded outcome equal";
            if (!cut.empty()) outcome += "; " + cut;
            w.note(outcome);
            return;
        }
        // The session it became stays open to be looked at, but the open failed as kvw replay
        // does (an error, so that --bundle writes nothing and exits 1): the trace and what it
        // regenerates are not the same run.
        const ReplayMismatch& m = report.mismatches.front();
        throw std::runtime_error(
            outcome + ", DIFFERENT: " + std::to_string(report.mismatches.size()) +
            " recorded outcome(s) differ (first: line " + std::to_string(m.line) + " " + m.event +
            " " + m.field + " " + m.expected + " → " + m.actual + ")" +
            (cut.empty() ? "" : "; " + cut));
    });
}

void SessionController::openSweepCell(std::shared_ptr<const SweepPlan> plan, qint64 cell) {
    const std::string what = "open " + plan->name(plan->cells.at(size_t(cell)));
    post(QString::fromStdString(what), [plan, cell, what](SessionWorker& w) {
        w.replaceSessionWith(what, [&] {
            const SweepCell& c = plan->cells.at(size_t(cell));
            auto session = std::make_unique<Session>(cell_session_options(*plan, c));
            const std::string text =
                read_regular_file(plan->texts.at(size_t(c.text)), kMaxTextFileBytes);
            const std::vector<int32_t> tokens = session->model().tokenizer.encode(text, true);
            session->start_tokens(first_prompt(tokens, plan->ctx));
            return session;
        });
    });
}

void SessionController::adoptModel(std::shared_ptr<const Model> model,
                                   const SessionOptions& options) {
    post("load " + QString::fromStdString(model->source), [model, options](SessionWorker& w) {
        w.replaceSession(std::make_unique<Session>(options, model));
    });
}

void SessionController::adoptSession(std::shared_ptr<Session> session) {
    post("fork", [session](SessionWorker& w) {
        // Handed over once, by forkInto: nobody else holds it.
        w.replaceSession(std::make_unique<Session>(std::move(*session)));
    });
}

void SessionController::startPrompt(const QString& prompt) {
    post("prompt",
         [prompt = prompt.toStdString()](SessionWorker& w) { w.session().start(prompt); });
}

void SessionController::startChatPrompt(const QString& prompt) {
    post("chat prompt", [prompt = prompt.toStdString()](SessionWorker& w) {
        Session& session = w.session();
        // Rendered before the session is touched: a template fault leaves the sequence as it was.
        const ChatPrompt chat = render_chat_prompt(session.model().tokenizer,
                                                   {prompt, std::nullopt, utc_date_today(), {}});
        session.start_tokens(chat.ids);
    });
}

void SessionController::step(int ticks) {
    post(ticks == 1 ? QString("step") : QString("run %1").arg(ticks), [ticks](SessionWorker& w) {
        int done = 0;
        for (; done < ticks && !w.cancelled(); ++done) {
            const TickResult result = w.session().step();
            w.reportProgress(done + 1, ticks);
            report_tick(result);
            if (done + 1 < ticks) w.publish();  // the last one is published when the job ends
        }
        if (done < ticks)
            w.note("paused at tick " + std::to_string(w.session().tick()) + " after " +
                   std::to_string(done) + " of " + std::to_string(ticks) + " ticks");
        else if (ticks > 1)  // a Run that went its whole way says so, as a paused one does
            w.note("ran " + std::to_string(ticks) + " ticks: now at tick " +
                   std::to_string(w.session().tick()));
    });
}

void SessionController::textAction(TextActionKind kind, int layer, int row1, int row2,
                                   const QString& text, bool applyNow) {
    post(QString(text_action_kind_name(kind)) + " text",
         [=, text = text.toStdString()](SessionWorker& w) {
             Session& s = w.session();
             const ActionList actions = text_action(s, kind, layer, row1, row2, text);
             if (applyNow)
                 apply_now(s, actions);
             else
                 s.inject(actions);
         });
}

void SessionController::setBudget(const PolicyBudget& budget, quint64 seed, OutcomeHandler done) {
    post(
        QString("budget %1 %2 %3").arg(budget.sink).arg(budget.budget).arg(budget.window),
        [budget, seed](SessionWorker& w) {
            PolicyOptions options = w.session().options().policy;
            options.budget = budget;
            options.seed = seed;
            w.session().set_policy_options(options);
            spdlog::info(
                "policy budget: S {} + B {} + W {} rows per layer, seed {} ({} made again)",
                budget.sink, budget.budget, budget.window, seed, w.session().options().proposer);
        },
        std::move(done));
}

void SessionController::setGate(const QString& path) {
    post("gate " + path, [path = path.toStdString()](SessionWorker& w) {
        read_gate_file(path);  // ModelError naming the file and the tensor or key
        PolicyOptions options = w.session().options().policy;
        options.gate = path;
        w.session().set_policy_options(options);
        spdlog::info("smartkv gate: {}", path);
    });
}

void SessionController::startAb(const QString& policy, const PolicyOptions& options) {
    post("A/B " + policy, [policy = policy.toStdString(), options](SessionWorker& w) {
        w.startAb({policy, options});
        const PolicyBudget& b = options.budget;
        spdlog::info("A/B on: {} against {} (S {} + B {} + W {})", w.session().options().proposer,
                     policy, b.sink, b.budget, b.window);
    });
}

void SessionController::stopAb() {
    post("A/B off", [](SessionWorker& w) {
        w.stopAb();
        spdlog::info("A/B off");
    });
}

void SessionController::saveTrace(const QString& path, const QString& done,
                                  const QString& problem) {
    post("save trace", [path = path.toStdString(), done = done.toStdString(),
                        problem = problem.toStdString()](SessionWorker& w) {
        w.session().trace().write(path);
        w.markTraceSaved();
        if (!problem.empty()) throw std::runtime_error(problem);
        w.note(done.empty() ? "trace written: " + path : done);
    });
}

void SessionController::autosaveTrace(const QString& path) {
    post("autosave trace", [path = path.toStdString()](SessionWorker& w) {
        w.autosaveTrace(path);
        w.note("trace kept up to date in " + path);
    });
}

namespace {

std::string where(const Session& s) {
    return "tick " + std::to_string(s.tick()) + ", state hash " + hash_hex(s.state_hash()) + ", " +
           std::to_string(s.undo_depth()) + " to undo, " + std::to_string(s.redo_depth()) +
           " to redo";
}

}  // namespace

void SessionController::undo(int steps) {
    post("undo", [steps](SessionWorker& w) {
        w.session().undo(steps);
        w.note("undo " + std::to_string(steps) + ": " + where(w.session()));
    });
}

void SessionController::redo(int steps) {
    post("redo", [steps](SessionWorker& w) {
        w.session().redo(steps);
        w.note("redo " + std::to_string(steps) + ": " + where(w.session()));
    });
}

void SessionController::snapshot(const QString& name) {
    post("snapshot " + name, [name = name.toStdString()](SessionWorker& w) {
        w.session().snapshot(name);
        w.note("snapshot " + name + ": " + where(w.session()));
    });
}

void SessionController::restore(const QString& name) {
    post("restore " + name, [name = name.toStdString()](SessionWorker& w) {
        w.session().restore(name);
        w.note("restored " + name + ": " + where(w.session()));
    });
}

void SessionController::forkInto(qint64 tick, SessionController* target) {
    // The fork's window may close while the fork is being built: the hand-over goes through
    // this controller (which outlives its worker's jobs) and checks on the UI thread that the
    // target still exists.
    const QPointer<SessionController> guarded(target);
    post(QString("fork at tick %1").arg(tick), [this, tick, guarded](SessionWorker& w) {
        std::shared_ptr<Session> forked = w.session().fork(tick);
        w.note("forked at tick " + std::to_string(tick) + ": " + where(*forked));
        QMetaObject::invokeMethod(
            this,
            [guarded, forked] {
                if (guarded) guarded->adoptSession(forked);
            },
            Qt::QueuedConnection);
    });
}

void SessionController::showTick(qint64 tick) {
    post(QString("show tick %1").arg(tick), [tick](SessionWorker& w) {
        // The scratch session goes when the job ends; only its Frame stays.
        w.publishPast(w.session().fork(tick)->frame());
    });
}

}  // namespace kvw
