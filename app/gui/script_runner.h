#pragma once
#include <QString>
#include <QStringList>

#include "core/script/script.h"
#include "core/script/script_error.h"
#include "widgets/frame_view.h"

namespace kvw {

class MainWindow;
class SessionController;

struct ShotOptions {
    QString shots_dir;           // where `shot NAME` writes NAME.png; empty: shots are an error
    QString golden_dir;          // compare every shot with GOLDEN/NAME.png; empty: no comparison
    int tolerance = 0;           // largest channel difference that still counts as equal
    bool update_golden = false;  // KVW_UPDATE_GOLDEN=1: write the goldens instead of comparing
};

// Runs a parsed .kvs script through the window and the controller, as a person would: every
// command that gives the session work waits until the controller is idle and the views have
// drawn the result, so each line sees the state the previous ones made (ARCHITECTURE §6).
class ScriptRunner {
public:
    ScriptRunner(SessionController& controller, MainWindow& window, ShotOptions shots);

    // Throws ScriptError (file:line: command: message) at the first command that fails or
    // expectation that does not hold. Shots that differ from their golden images do not stop
    // the script: each is printed when taken (with a NAME.diff.png beside the shot) and counted.
    // Returns the number of differing shots.
    int run(const Script& script);

    const QStringList& written() const { return written_; }  // every PNG written

private:
    void execute(const ScriptCommand& c);
    void waitIdle(const ScriptCommand& c);
    FramePtr frame(const ScriptCommand& c);  // the last Frame; fails when there is none
    FrameView* view(const ScriptCommand& c, const QString& name);  // fails for an unknown name
    void expect(const ScriptCommand& c);
    void shot(const ScriptCommand& c);
    // export VIEW FILE / export-bundle NAME, under the shots folder.
    void exportData(const ScriptCommand& c);
    [[noreturn]] void fail(const ScriptCommand& c, ScriptErrorKind kind, const QString& message);

    SessionController& controller_;
    MainWindow& window_;
    ShotOptions shots_;
    std::string file_;
    QStringList errors_;  // errorOccurred messages of the command being run
    QStringList written_;
    int mismatches_ = 0;
};

}  // namespace kvw
