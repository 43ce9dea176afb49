#pragma once
#include <QMetaType>
#include <QString>
#include <QWidget>

#include "core/session/frame.h"
#include "core/session/text_action.h"
#include "core/state/action.h"
#include "widgets/view_table.h"

Q_DECLARE_METATYPE(kvw::FramePtr)
Q_DECLARE_METATYPE(kvw::ActionList)

namespace kvw {

// What every view of the main window is: a widget fed only by Frames (ARCHITECTURE §6). A view
// never touches the Session; what the user asks for leaves as a signal that the window routes to
// the SessionController. Adding a view is one subclass plus one line in view_registry.cpp.
class FrameView : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    // The view's name in scripts (`view NAME`, `shot NAME VIEW`) and saved layouts.
    virtual QString viewName() const = 0;
    // The view's data as a table, for export as CSV or JSON (view_export.h): what it shows of
    // the last frame, at full precision.
    virtual ViewTable table() const = 0;
    // A view of the run across ticks (the timeline) keeps taking the live Frames while the window
    // shows a past tick (ARCHITECTURE §16) and marks that tick instead (setShownTick); every
    // other view is handed the past tick's Frame.
    virtual bool showsHistory() const { return false; }

public slots:
    // Shows the frame. Called on the UI thread with every frame the session publishes.
    virtual void setFrame(kvw::FramePtr frame) = 0;
    // The rows [row, row + count) selected anywhere in the window (row -1: none) and the layer
    // the window shows. count is 1 but for a span (a wLOD node's rows); a view that shows one
    // row shows `row`. Overrides repeat the default, so that it is the same whatever the type.
    virtual void setSelection(int layer, int row, int count = 1) {
        Q_UNUSED(layer);
        Q_UNUSED(row);
        Q_UNUSED(count);
    }
    // The past tick the window shows, -1 while it shows the live session.
    virtual void setShownTick(qint64 tick) { Q_UNUSED(tick); }

signals:
    void rowSelected(int layer, int row);
    // The user picked a tick of the current sequence to look at (the timeline, a record's
    // history); the window shows that tick's Frame.
    void tickChosen(qint64 tick);
    // A span of rows [row, row + count) selected here (a wLOD node's).
    void rowsSelected(int layer, int row, int count);
    void layerSelected(int layer);
    // applyNow: Step 4 now (Session::apply_now); otherwise queued for the next tick (inject).
    void actionsRequested(kvw::ActionList actions, bool applyNow);
    // Text the user typed for an action that needs token ids (replace pair / insert before);
    // the controller tokenizes it on the worker thread.
    void textActionRequested(kvw::TextActionKind kind, int layer, int row1, int row2, QString text,
                             bool applyNow);
};

}  // namespace kvw
