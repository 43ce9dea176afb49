#pragma once
// What the tests that drive the window or its controller share: waiting for the worker, the
// log's text, a named action.
#include <QAction>
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "widgets/frame_view.h"

namespace kvw::test {

// Waits (up to a minute) until the controller has no command left, then a little longer for
// the last queued Frame and log lines to arrive. False when it never became idle.
inline bool wait_idle(const SessionController& c) {
    QElapsedTimer t;
    t.start();
    while (!c.isIdle() && t.elapsed() < 60000) QTest::qWait(2);
    QTest::qWait(5);
    return c.isIdle();
}

inline QString log_text(MainWindow& w) {
    return w.docks().view("log")->findChild<QPlainTextEdit*>("text")->toPlainText();
}

// The window's QAction called `name` (toolbar and menu actions are named); fatal when absent.
inline QAction* named_action(MainWindow& w, const char* name) {
    QAction* a = w.findChild<QAction*>(name);
    if (!a) qFatal("no action %s", name);
    return a;
}

}  // namespace kvw::test
