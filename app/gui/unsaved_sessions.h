#pragma once
#include <QList>
#include <QString>

class QWidget;

namespace kvw {

class SessionController;

// A session that closing a window would drop: what the question calls it ("the session",
// "the fork") and the controller that holds it.
struct OpenSession {
    QString name;
    SessionController* controller = nullptr;
};

// One question about every session in `sessions` whose trace changed since it was last saved
// (SessionController::hasUnsavedChanges): Save (each trace to a file the user picks), Discard or
// Cancel. True when the windows may close: nothing unsaved, Discard, or every trace written.
// Each controller is waited for first, so that the question is about the session as it will
// stay; the caller pauses a Run before.
bool may_close_sessions(QWidget* parent, const QString& title, const QList<OpenSession>& sessions);

}  // namespace kvw
