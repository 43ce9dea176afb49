#pragma once
#include <QStringList>

namespace kvw {

class MainWindow;
class SessionController;

// A whole-session bundle in `dir` (made if missing): window.png, and for every view NAME.csv,
// NAME.json and NAME.png of the last frame, and trace.ndjson, the session's trace, which the
// worker writes when it reaches the request (replay it with `kvw replay`). Returns the
// problems, one per file that could not be written; empty when all went well. Once the trace is
// written the log and the status bar say that the bundle is complete, or what it lacks.
QStringList export_session_bundle(MainWindow& window, SessionController& controller,
                                  const QString& dir);

}  // namespace kvw
