#include "app/gui/script_runner.h"

#include <cstdio>
#include <sstream>

#include <spdlog/spdlog.h>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>

#include "app/gui/image_compare.h"
#include "app/gui/main_window.h"
#include "app/gui/session_bundle.h"
#include "app/gui/session_controller.h"
#include "app/gui/settle_events.h"
#include "app/gui/view_controls.h"
#include "app/gui/view_docks.h"
#include "core/backend/backend_registry.h"
#include "core/script/script_reference.h"
#include "core/session/error_message.h"
#include "widgets/view_export.h"

namespace kvw {

namespace {

// Longer than loading and prefilling tinyllama-shape on two cores; a script that waits longer
// is stuck and should say so rather than hang a CI job.
constexpr int kIdleLimitMs = 20 * 60 * 1000;

QString invariant_state(const InvariantStatus& s) {
    if (s.passed) return "pass";
    return QString("fail at layer %1 row %2: %3")
        .arg(s.layer)
        .arg(s.row)
        .arg(QString::fromStdString(s.detail));
}

}  // namespace

ScriptRunner::ScriptRunner(SessionController& controller, MainWindow& window, ShotOptions shots)
    : controller_(controller), window_(window), shots_(std::move(shots)) {
    QObject::connect(&controller_, &SessionController::errorOccurred, &window_,
                     [this](const QString& message) { errors_ << message; });
}

int ScriptRunner::run(const Script& script) {
    // The script's lines belong to the window it drives (its fork window keeps its own log).
    const LogChannelScope channel(controller_.logChannel());
    file_ = script.file;
    mismatches_ = 0;
    // The log names the file without its folder: a screenshot of the log must not depend on
    // where the script was run from (errors keep the whole path).
    const std::string name = QFileInfo(QString::fromStdString(file_)).fileName().toStdString();
    for (const ScriptCommand& c : script.commands) {
        spdlog::info("script {}:{}: {}", name, c.line, printable(c.source));
        execute(c);
    }
    return mismatches_;
}

void ScriptRunner::fail(const ScriptCommand& c, ScriptErrorKind kind, const QString& message) {
    throw ScriptError(kind, file_, c.line, c.source, message.toStdString());
}

void ScriptRunner::waitIdle(const ScriptCommand& c) {
    if (!controller_.isIdle()) {
        QEventLoop loop;
        QObject::connect(&controller_, &SessionController::becameIdle, &loop, &QEventLoop::quit);
        QTimer limit;
        limit.setSingleShot(true);
        QObject::connect(&limit, &QTimer::timeout, &loop, [&loop] { loop.exit(1); });
        limit.start(kIdleLimitMs);
        if (loop.exec() != 0) {
            controller_.cancel();
            fail(c, ScriptErrorKind::CommandFailed, "the session did not become idle in time");
        }
    }
    settle_queued_events();
    if (!errors_.isEmpty()) {
        const QString message = errors_.join("; ");
        errors_.clear();
        fail(c, ScriptErrorKind::CommandFailed, message);
    }
}

FrameView* ScriptRunner::view(const ScriptCommand& c, const QString& name) {
    FrameView* v = window_.docks().view(name);
    if (!v)
        fail(c, ScriptErrorKind::CommandFailed,
             "no view '" + name + "' (views: " + window_.docks().names().join(", ") + ")");
    return v;
}

FramePtr ScriptRunner::frame(const ScriptCommand& c) {
    FramePtr f = controller_.lastFrame();
    if (!f) fail(c, ScriptErrorKind::CommandFailed, "no session yet: load a model first");
    return f;
}

void ScriptRunner::execute(const ScriptCommand& c) {
    using K = ScriptCommandKind;
    const QString text = QString::fromStdString(c.text);
    switch (c.kind) {
        case K::Session:
            // The prompt box shows the text the sequence started from, as if typed there.
            if (const auto* start = std::get_if<command::Start>(&*c.session))
                window_.setPrompt(QString::fromStdString(std::get<std::string>(start->prompt)));
            controller_.postCommand(*c.session);
            break;
        case K::Load: window_.openModel(text); break;
        case K::Backend: {
            std::string why;
            if (!backend_available(c.text, why))
                fail(c, ScriptErrorKind::CommandFailed, QString::fromStdString(why));
            window_.setBackend(text);
            break;
        }
        case K::Step: controller_.step(int(c.count)); break;
        case K::ReplaceText:
            controller_.textAction(TextActionKind::ReplacePair, window_.layer(), c.row, c.row2,
                                   text, false);
            break;
        case K::InsertText:
            controller_.textAction(TextActionKind::Insert, window_.layer(), c.row, -1, text, false);
            break;
        case K::Budget: controller_.setBudget(c.policy.budget, c.policy.seed); break;
        case K::Gate: controller_.setGate(text); break;
        case K::Ab:
            if (c.flag)
                controller_.startAb(text, c.policy);
            else
                controller_.stopAb();
            break;
        case K::WlodMax: {
            const int k = frame(c)->wlod_k;
            if (k == 0)
                fail(c, ScriptErrorKind::CommandFailed, "wLOD is off: `wlod K W_MAX` turns it on");
            controller_.postCommand(command::SetWlod{k, c.count});
            break;
        }
        case K::Undo: controller_.undo(int(c.count)); break;
        case K::Redo: controller_.redo(int(c.count)); break;
        case K::Snapshot: controller_.snapshot(text); break;
        case K::Restore: controller_.restore(text); break;
        case K::Fork: window_.forkAt(c.count); break;
        case K::ShowTick: {
            const int64_t live = frame(c)->tick;
            if (c.count >= live)
                fail(c, ScriptErrorKind::CommandFailed,
                     QString("tick %1 is not past: the session is at tick %2")
                         .arg(c.count)
                         .arg(live));
            window_.showTick(c.count);
            break;
        }
        case K::Live: window_.backToLive(); break;
        case K::WaitIdle: break;
        case K::Layer: {
            const int layers = int(frame(c)->layers.size());
            if (c.layer >= layers)
                fail(c, ScriptErrorKind::CommandFailed,
                     QString("the model has %1 layers (0..%2)").arg(layers).arg(layers - 1));
            window_.selectLayer(c.layer);
            break;
        }
        case K::Select: {
            const FramePtr f = frame(c);
            const int rows = window_.layer() < int(f->layers.size())
                                 ? f->layers[size_t(window_.layer())].rows()
                                 : 0;
            if (c.row >= rows)
                fail(c, ScriptErrorKind::CommandFailed,
                     QString("layer %1 has %2 rows").arg(window_.layer()).arg(rows));
            window_.select(window_.layer(), c.row);
            break;
        }
        case K::View:
            view(c, text);
            window_.showView(text);
            break;
        case K::Set:
        case K::Click: {
            FrameView* target = view(c, QString::fromStdString(c.view));
            const QString problem = c.kind == K::Set
                                        ? set_control(target, text, QString::fromStdString(c.value))
                                        : click_control(target, text);
            if (!problem.isEmpty()) fail(c, ScriptErrorKind::CommandFailed, problem);
            break;
        }
        case K::Controls: {
            const QString name = QString::fromStdString(c.view);
            const QStringList lines = describe_controls(view(c, name));
            spdlog::info("controls of {}: {}", name.toStdString(),
                         lines.isEmpty() ? "none" : std::to_string(lines.size()));
            for (const QString& line : lines) spdlog::info("  {}", line.toStdString());
            break;
        }
        case K::Help: {
            std::istringstream lines(script_help_text(c.text));
            for (std::string line; std::getline(lines, line);) spdlog::info("  {}", line);
            break;
        }
        case K::ExpectInvariant:
        case K::ExpectRows:
        case K::ExpectTick:
            waitIdle(c);
            expect(c);
            return;
        case K::Export:
        case K::ExportBundle:
            waitIdle(c);
            exportData(c);
            return;
        case K::Shot:
            waitIdle(c);
            shot(c);
            return;
    }
    waitIdle(c);
}

void ScriptRunner::expect(const ScriptCommand& c) {
    const FramePtr f = frame(c);
    if (c.kind == ScriptCommandKind::ExpectTick) {
        if (f->tick != c.count)
            fail(c, ScriptErrorKind::ExpectationFailed, QString("the tick is %1").arg(f->tick));
    } else if (c.kind == ScriptCommandKind::ExpectRows) {
        if (c.layer >= int(f->layers.size()))
            fail(c, ScriptErrorKind::ExpectationFailed,
                 QString("there is no layer %1 (%2 layers)").arg(c.layer).arg(f->layers.size()));
        const int rows = f->layers[size_t(c.layer)].rows();
        if (rows != c.count)
            fail(c, ScriptErrorKind::ExpectationFailed,
                 QString("layer %1 holds %2 rows").arg(c.layer).arg(rows));
    } else {
        QStringList known;
        for (const InvariantStatus& s : f->invariants) {
            known << QString::fromStdString(s.name);
            if (s.name != c.text) continue;
            if (s.passed != c.flag)
                fail(c, ScriptErrorKind::ExpectationFailed,
                     QString::fromStdString(s.name) + " is " + invariant_state(s));
            return;
        }
        fail(c, ScriptErrorKind::ExpectationFailed,
             "no invariant named '" + QString::fromStdString(c.text) +
                 "' (known: " + known.join(", ") + ")");
    }
}

void ScriptRunner::exportData(const ScriptCommand& c) {
    if (shots_.shots_dir.isEmpty())
        fail(c, ScriptErrorKind::CommandFailed, "exports need --shots DIR");
    const QString name = QString::fromStdString(c.text);
    const QDir out(shots_.shots_dir);
    if (c.kind == ScriptCommandKind::ExportBundle) {
        const QStringList problems =
            export_session_bundle(window_, controller_, out.filePath(name));
        if (!problems.isEmpty()) fail(c, ScriptErrorKind::CommandFailed, problems.join("; "));
        waitIdle(c);  // the worker writes the trace
        return;
    }
    const FramePtr f = frame(c);
    if (!QDir().mkpath(shots_.shots_dir))
        fail(c, ScriptErrorKind::CommandFailed, "cannot make " + shots_.shots_dir);
    FrameView* target = view(c, QString::fromStdString(c.view));
    const QString problem = export_view(*target, out.filePath(name), f->tick);
    if (!problem.isEmpty()) fail(c, ScriptErrorKind::CommandFailed, problem);
    written_ << out.filePath(name);
}

void ScriptRunner::shot(const ScriptCommand& c) {
    if (shots_.shots_dir.isEmpty())
        fail(c, ScriptErrorKind::CommandFailed, "shots need --shots DIR");
    if (!c.view.empty()) view(c, QString::fromStdString(c.view));
    const QImage image = window_.grabShot(QString::fromStdString(c.view));
    const QString name = QString::fromStdString(c.text);
    const QString path = QDir(shots_.shots_dir).filePath(name + ".png");
    if (!QDir().mkpath(shots_.shots_dir) || !image.save(path))
        fail(c, ScriptErrorKind::CommandFailed, "cannot write " + path);
    written_ << path;
    if (shots_.golden_dir.isEmpty()) return;

    const QString golden_path = QDir(shots_.golden_dir).filePath(name + ".png");
    if (shots_.update_golden) {
        if (!QDir().mkpath(shots_.golden_dir) || !image.save(golden_path))
            fail(c, ScriptErrorKind::CommandFailed, "cannot write " + golden_path);
        spdlog::info("golden image updated: {}", golden_path.toStdString());
        return;
    }
    const QImage golden(golden_path);
    QString problem;
    if (golden.isNull()) {
        problem = "no golden image " + golden_path + " (KVW_UPDATE_GOLDEN=1 writes it)";
    } else if (const ImageDiff diff = compare_images(image, golden, shots_.tolerance);
               !diff.within_tolerance()) {
        problem = diff.describe(shots_.tolerance) + " against " + golden_path;
        if (!diff.marked.isNull()) {
            const QString marked = QDir(shots_.shots_dir).filePath(name + ".diff.png");
            diff.marked.save(marked);
            problem += "; differences in red: " + marked;
        }
    }
    if (problem.isEmpty()) return;
    ++mismatches_;
    const ScriptError e(ScriptErrorKind::ShotMismatch, file_, c.line, c.source,
                        problem.toStdString());
    std::fprintf(stderr, "%s\n", e.what());
}

}  // namespace kvw
