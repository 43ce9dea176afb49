#pragma once
// What the tests that drive the window or its controller share: waiting for the worker, the
// log's and the status bar's text, a named action, answers to the dialogs the window opens.
#include <functional>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "core/session/trace.h"
#include "widgets/frame_view.h"

namespace kvw::test {

// The windows' saved geometry and Qt's own settings (QtProject.conf, written when a file dialog
// goes) in a directory of the test object's: not the user's, and alive as long as the object,
// so that a write coming after a test function still lands in it and goes with it.
class ScratchSettings {
public:
    ScratchSettings() {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir_.path());
    }

private:
    QTemporaryDir dir_;
};

// Waits (up to a minute) until the controller has no command left, then a little longer for
// the last queued Frame and log lines to arrive. False when it never became idle.
inline bool wait_idle(const SessionController& c) {
    QElapsedTimer t;
    t.start();
    while (!c.isIdle() && t.elapsed() < 60000) QTest::qWait(2);
    QTest::qWait(5);
    return c.isIdle();
}

// What the status bar's message says now ("Error: …" for an error); empty when nothing.
inline QString status_message(const MainWindow& w) {
    const auto* label = w.findChild<QLabel*>("statusMessage");
    return label && !label->isHidden() ? label->text() : QString();
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

// The "tick" events of the trace file at `path` (a trace the window or the controller wrote).
inline int ticks_in_trace(const QString& path) {
    const Trace trace = Trace::read(path.toStdString());
    int ticks = 0;
    for (const nlohmann::json& e : trace.events())
        if (e.value("event", "") == "tick") ++ticks;
    return ticks;
}

// The window's action whose text (without its & mnemonic) is `text`, menus included; fatal when
// absent.
inline QAction* action_titled(QWidget& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (QString(a->text()).remove('&') == text) return a;
    qFatal("no action titled %s", qPrintable(text));
    return nullptr;
}

// Answers the modal dialogs that the code under test opens, in order: each answer gets the
// dialog (the application's active modal widget) once it is up, and closes it. A dialog with no
// answer left is rejected and counted, so that a test cannot hang on it.
class ModalAnswers : public QObject {
public:
    using Answer = std::function<void(QWidget*)>;
    explicit ModalAnswers(QList<Answer> answers) : answers_(std::move(answers)) {
        connect(&poll_, &QTimer::timeout, this, [this] { answerOpenDialog(); });
        poll_.start(10);  // timers run inside a dialog's exec() as outside
    }
    int opened() const { return opened_; }          // dialogs seen
    int unanswered() const { return unanswered_; }  // of those, left without an answer

private:
    void answerOpenDialog() {
        QWidget* modal = QApplication::activeModalWidget();
        if (!modal || modal == answered_) return;  // none, or the last one still closing
        answered_ = modal;
        ++opened_;
        if (answers_.isEmpty()) {
            ++unanswered_;
            if (auto* dialog = qobject_cast<QDialog*>(modal)) dialog->reject();
            return;
        }
        answers_.takeFirst()(modal);
        // An answer that failed half-way must not leave its dialog waiting for ever.
        if (auto* dialog = qobject_cast<QDialog*>(modal); dialog && dialog->isVisible())
            dialog->reject();
    }

    QList<Answer> answers_;
    QTimer poll_;
    QPointer<QWidget> answered_;  // null once it is gone: the next dialog may reuse its address
    int opened_ = 0;
    int unanswered_ = 0;
};

// An answer to a file dialog (a file to save or open, a folder): picks `path`, as if typed and
// confirmed.
inline ModalAnswers::Answer pick_file(QString path) {
    return [path](QWidget* dialog) {
        auto* files = qobject_cast<QFileDialog*>(dialog);
        QVERIFY2(files, dialog->metaObject()->className());
        // A folder is chosen by going into it: selecting it from its parent depends on when the
        // dialog's file model has read the parent. A file's name is typed into the name field:
        // selectFile leaves the field as it is while it has the focus.
        if (files->fileMode() == QFileDialog::Directory) {
            files->setDirectory(path);
        } else {
            const QFileInfo file(path);
            files->setDirectory(file.absolutePath());
            auto* name = files->findChild<QLineEdit*>("fileNameEdit");  // Qt's own dialog's
            QVERIFY(name);
            name->setText(file.fileName());
        }
        static_cast<QDialog*>(files)->accept();  // QFileDialog's own accept checks the choice
    };
}

}  // namespace kvw::test
