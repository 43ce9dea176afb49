#pragma once
#include <memory>

#include <QImage>
#include <QMainWindow>
#include <QPointer>
#include <QSize>
#include <QStringList>

#include "app/gui/command_outcome.h"
#include "widgets/frame_view.h"

namespace kvw {

class HistoryBar;
class MainToolBar;
class SessionController;
struct OpenSession;
class StatusLine;
class SweepResultsView;
class ViewDocks;

struct WindowOptions {
    // Scripts need the same pixels on every run: a fixed size, and no layout restored from the
    // user's settings (nor saved back).
    bool script_mode = false;
    QSize size{1600, 1000};
    // A fork's window (ARCHITECTURE §15): the default layout, none read from or saved to the
    // user's settings, which belong to the main window.
    bool fork = false;
};

// The workbench window: toolbar, one dock per registered view, status bar. Holds the selection
// (a layer and the record a row was chosen on) and hands it to every view as the row that holds
// that record in the Frame shown; routes what the views and the toolbar ask for to
// the SessionController. Never touches the Session.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(SessionController& controller, WindowOptions options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads a model on the toolbar's backend; starts the toolbar's prompt when there is one.
    void openModel(const QString& spec);
    // Replaces the session with the one a recorded trace leaves (a Run pauses first); `model`
    // and `backend` replace the trace's when given.
    void openTrace(const QString& path, const QString& model = {}, const QString& backend = {});
    // A sweep's folder (kvw sweep --plan DIR) in a window of its own: its cells and its plot; a
    // cell double-clicked replaces the session with that cell at its start (a Run pauses
    // first). Returns the window, or null when DIR holds no readable plan (the status line says
    // why).
    SweepResultsView* openSweep(const QString& dir);
    void setPrompt(const QString& prompt);
    void setBackend(const QString& backend);

    int layer() const { return layer_; }
    int row() const { return row_; }
    int rowCount() const { return rows_; }
    int64_t selectedRecord() const { return record_; }  // -1: no row selected
    // The selection everywhere: rows [row, row + count) of the layer (count > 1: a span, such as
    // a wLOD node's rows); -1 clears the row. Values are taken as they are: callers that take
    // them from a person (scripts) check them against the last Frame first. The selection is
    // the record the row holds: after an edit, another layer or another tick shown, every view
    // shows the row that holds that record there (none where the record is not live).
    void select(int layer, int row, int count = 1);
    // Another layer, the same record.
    void selectLayer(int layer);

    // wLOD on with K tokens per block and W_max rows, changed, or off (k 0); pauses a Run first.
    void setWlod(int k, qint64 w_max);
    // A selective policy's budgets and seed, the cache layout: each pauses a Run first; `done`
    // hears whether the session took them (SessionController::setBudget, setLayout).
    void setBudget(const PolicyBudget& budget, quint64 seed, OutcomeHandler done);
    void setCacheLayout(CacheLayout layout, const RingOptions& ring, qint64 capacity,
                        OutcomeHandler done);

    // Logs `message` (as an error when `error`) and shows it in the status bar: what the window
    // did itself (an export), as the controller's notices and errors are.
    void report(const QString& message, bool error = false);
    // File ▸ Quit: closes the first window, and with it every fork window opened from it, after
    // one question about the sessions not saved (none in a script run). A fork window's Quit
    // quits too.
    void quit();

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

    // ---- history (ARCHITECTURE §15; main_window_history.cpp) --------------------------------
    // What the Edit menu offers now: nothing while a Run goes. canKeepHistory: a session is
    // there to snapshot or fork.
    bool canKeepHistory() const;
    bool canUndo() const;
    bool canRedo() const;
    QStringList snapshotNames() const;
    void undo();
    void redo();
    void saveSnapshot(const QString& name);
    void restoreSnapshot(const QString& name);
    // The session forked at `tick` into a second window beside this one, driven by its own
    // controller; a later fork replaces the one shown there.
    void forkAt(qint64 tick);
    MainWindow* forkWindow() const { return fork_window_; }
    SessionController* forkController() const { return fork_controller_.get(); }

    // ---- past ticks (ARCHITECTURE §16; main_window_scrub.cpp) ----------------------------------
    // Every view but the timeline shows the Frame the current sequence had at `tick` (replayed
    // on the worker from the trace; the live session is not touched) until backToLive(); a
    // banner and the status bar say so. A tick at or past the live one is the live session.
    void showTick(qint64 tick);
    void backToLive();
    // One tick earlier (delta -1) or later (+1) than the tick shown now, the live one while
    // none is; past the last tick is the live session (View → Previous / Next tick).
    void stepShownTick(int delta);
    // The past tick's Frame the views show; null while they show the live session.
    FramePtr pastFrame() const { return past_; }
    // What the views show: the past tick's Frame, else the live one.
    FramePtr shownFrame() const;
    const HistoryBar& historyBar() const { return *history_bar_; }

signals:
    // After every Frame and when a Run starts or ends: canUndo() and the rest may differ.
    void historyChanged();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void connectToolBar();
    void connectViews();
    void showFrame(const FramePtr& frame);
    void showPastFrame(const FramePtr& frame);
    // A view asked for an edit: false (and back to live, saying why) while a past tick is
    // shown, since the rows it names are that tick's, not the live session's.
    bool editsLive(const QString& what);
    // Stops a Run after its current tick (logged with `why` when given), so that what comes
    // next runs at once instead of after the run; nothing while no Run goes.
    void pauseRun(const QString& why);
    // Shrinks and moves the window into the screen's available area.
    void fitOnScreen();
    // Places the selected record in the Frame shown now and hands the row to the views.
    void followSelection();
    // Hands (layer, row, count) to the views, clamped to the Frame shown.
    void showSelection(int layer, int row, int count);
    // Gives `fork`'s timeline this window's points up to `tick`.
    void inheritTimeline(MainWindow& fork, qint64 tick) const;
    // This window's session and those of the fork windows opened from it (and from those),
    // each with its Run paused: what closing this window drops.
    void collectSessions(QList<OpenSession>& sessions);
    // Those windows close without asking: the question was answered.
    void confirmClose();

    SessionController& controller_;
    WindowOptions options_;
    MainToolBar* toolbar_;
    ViewDocks* docks_;
    StatusLine* status_;
    HistoryBar* history_bar_;
    QString spec_;  // the model last asked for, reloaded when the backend changes
    int layer_ = 0;
    int row_ = -1;
    int rows_ = 1;                   // the selected span's length
    int64_t record_ = -1;            // the ledger id the selection was made on; -1: none
    bool toolbars_wrapped_ = false;  // the policy toolbar sits on a second row
    bool run_active_ = false;        // a Run was asked for and the session has not been idle since
    bool layout_pending_ = true;     // no saved layout was restored: arrange the docks when shown
    FramePtr past_;                  // the past tick's Frame the views show; null: live
    qint64 requested_tick_ = -1;     // the past tick asked for last; -1: none pending
    std::unique_ptr<SessionController> fork_controller_;  // the fork window's
    QPointer<MainWindow> fork_window_;
    QPointer<MainWindow> origin_;   // a fork window's: the window it was forked from
    bool close_confirmed_ = false;  // closing drops the sessions: asked, or not to be asked
    bool asking_ = false;           // the question about unsaved sessions is up
};

}  // namespace kvw
