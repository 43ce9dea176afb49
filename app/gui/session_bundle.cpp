#include "app/gui/session_bundle.h"

#include <QDir>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "widgets/frame_view.h"
#include "widgets/view_export.h"

namespace kvw {

QStringList export_session_bundle(MainWindow& window, SessionController& controller,
                                  const QString& dir) {
    if (!QDir().mkpath(dir)) return {"cannot make the folder " + dir};
    const QDir out(dir);
    QStringList problems;
    const FramePtr frame = controller.lastFrame();
    const qint64 tick = frame ? frame->tick : 0;
    if (const QString problem = save_png(window.grabShot({}), out.filePath("window.png"));
        !problem.isEmpty())
        problems << problem;
    for (FrameView* view : window.docks().views())
        for (const char* suffix : {".csv", ".json", ".png"}) {
            const QString problem =
                export_view(*view, out.filePath(view->viewName() + suffix), tick);
            if (!problem.isEmpty()) problems << problem;
        }
    const QString done = "exported session bundle " + dir;
    const QString problem =
        problems.isEmpty() ? QString() : "session bundle " + dir + ": " + problems.join("; ");
    if (frame)
        controller.saveTrace(out.filePath("trace.ndjson"), done, problem);
    else
        window.report(problem.isEmpty() ? done : problem, !problem.isEmpty());
    return problems;
}

}  // namespace kvw
