#include "app/gui/unsaved_sessions.h"

#include <QFileDialog>
#include <QMessageBox>

#include "app/gui/session_controller.h"

namespace kvw {

namespace {

// "the fork (synthetic:tiny, tick 12)"
QString described(const OpenSession& s) {
    const FramePtr frame = s.controller->lastFrame();
    if (!frame) return s.name;
    return QString("%1 (%2, tick %3)")
        .arg(s.name, QString::fromStdString(frame->model.source))
        .arg(frame->tick);
}

// Writes the session's trace to a file the user picks; false when none was picked or the
// write failed (the status bar and the log say why).
bool save(QWidget* parent, const OpenSession& s) {
    // "session.ndjson", "fork.ndjson": the last word of the session's name.
    const QString path =
        QFileDialog::getSaveFileName(parent, "Save the trace of " + described(s),
                                     s.name.section(' ', -1) + ".ndjson", "Traces (*.ndjson)");
    if (path.isEmpty()) return false;
    bool failed = false;
    const QMetaObject::Connection watch =
        QObject::connect(s.controller, &SessionController::errorOccurred,
                         [&failed](const QString&) { failed = true; });
    s.controller->saveTrace(path);
    s.controller->waitUntilIdle();
    QObject::disconnect(watch);
    return !failed;
}

}  // namespace

bool may_close_sessions(QWidget* parent, const QString& title, const QList<OpenSession>& sessions) {
    QList<OpenSession> unsaved;
    for (const OpenSession& s : sessions) {
        s.controller->waitUntilIdle();
        if (s.controller->hasUnsavedChanges()) unsaved << s;
    }
    if (unsaved.isEmpty()) return true;

    QString text;
    if (unsaved.size() == 1) {
        text = described(unsaved.front()) + " has changes that are not saved.";
        text[0] = text[0].toUpper();
    } else {
        text = "These sessions have changes that are not saved:";
        for (const OpenSession& s : unsaved) text += "\n• " + described(s);
    }
    QMessageBox box(QMessageBox::Warning, title, text,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setInformativeText(
        QString(unsaved.size() == 1 ? "Save writes its trace" : "Save writes the trace of each") +
        ", as File ▸ Save trace does (Open trace and kvw replay read it back).");
    box.setDefaultButton(QMessageBox::Save);
    box.setEscapeButton(QMessageBox::Cancel);
    switch (box.exec()) {
        case QMessageBox::Discard: return true;
        case QMessageBox::Save:
            for (const OpenSession& s : unsaved)
                if (!save(parent, s)) return false;
            return true;
        default: return false;
    }
}

}  // namespace kvw
