#pragma once
#include <QImage>
#include <QMainWindow>
#include <QSize>

#include "widgets/frame_view.h"

namespace kvw {

class MainToolBar;
class SessionController;
class StatusLine;
class ViewDocks;

struct WindowOptions {
    // Scripts need the same pixels on every run: a fixed size, and no layout restored from the
    // user's settings (nor saved back).
    bool script_mode = false;
    QSize size{1600, 1000};
};

// The workbench window: toolbar, one dock per registered view, status bar. Holds the selection
// (layer and row) and hands it to every view; routes what the views and the toolbar ask for to
// the SessionController. Never touches the Session.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(SessionController& controller, WindowOptions options, QWidget* parent = nullptr);

    // Loads a model on the toolbar's backend; starts the toolbar's prompt when there is one.
    void openModel(const QString& spec);
    void setPrompt(const QString& prompt);
    void setBackend(const QString& backend);

    int layer() const { return layer_; }
    int row() const { return row_; }
    // The selection everywhere; -1 clears the row. Values are taken as they are: callers that
    // take them from a person (scripts) check them against the last Frame first.
    void select(int layer, int row);

    // The next or previous layer (delta ±1), within the model's layers.
    void stepLayer(int delta);
    // Every dock back in the window, arranged as on a first start.
    void resetLayout();

    const ViewDocks& docks() const { return *docks_; }
    SessionController& controller() { return controller_; }
    // Brings a view's dock to the front; false when no view has that name.
    bool showView(const QString& name);
    // The window, or one view's dock (brought to the front first); null for an unknown view.
    QImage grabShot(const QString& view);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void connectToolBar();
    void connectViews();
    void showFrame(const FramePtr& frame);
    // Stops a Run after its current tick (logged with `why` when given), so that what comes
    // next runs at once instead of after the run; nothing while no Run goes.
    void pauseRun(const QString& why);
    // Shrinks and moves the window into the screen's available area.
    void fitOnScreen();

    SessionController& controller_;
    WindowOptions options_;
    MainToolBar* toolbar_;
    ViewDocks* docks_;
    StatusLine* status_;
    QString spec_;  // the model last asked for, reloaded when the backend changes
    int layer_ = 0;
    int row_ = -1;
    bool toolbars_wrapped_ = false;  // the policy toolbar sits on a second row
    bool run_active_ = false;        // a Run was asked for and the session has not been idle since
    bool layout_pending_ = true;     // no saved layout was restored: arrange the docks when shown
};

}  // namespace kvw
