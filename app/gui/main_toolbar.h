#pragma once
#include <QToolBar>

#include "core/state/rope_policy.h"
#include "widgets/frame_view.h"

class QAction;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace kvw {

// The window's toolbar: every control a person drives the session with. It only emits what
// was asked for; MainWindow sends that to the SessionController. setFrame() makes the controls
// show what the session really runs (layer range, proposer, RoPE policy, guard).
class MainToolBar : public QToolBar {
    Q_OBJECT
public:
    explicit MainToolBar(QWidget* parent = nullptr);

    QString backend() const;
    QString prompt() const;
    void setPrompt(const QString& prompt);
    void setBackend(const QString& name);
    void setLayer(int layer);  // without emitting layerChosen
    // While a run goes, "Run" becomes "Pause".
    void setRunning(bool running);

public slots:
    void setFrame(kvw::FramePtr frame);

signals:
    void modelChosen(QString spec);  // a file, a folder or synthetic:NAME
    void backendChosen(QString backend);
    void promptSubmitted(QString prompt);
    void stepRequested();
    void runRequested(int ticks);
    void pauseRequested();
    void rebuildRequested();
    void driftRequested();
    void proposerChosen(QString name);
    void ropePolicyChosen(kvw::RopePolicy policy);
    void guardToggled(bool on);
    void layerChosen(int layer);
    void screenshotRequested();

private:
    void addModelButtons();
    void addBackendCombo();
    void addRunControls();
    void addPolicyControls();

    QComboBox* backend_;
    QLineEdit* prompt_;
    QSpinBox* run_ticks_;
    QAction* run_;
    QAction* guard_;
    QComboBox* proposer_;
    QComboBox* rope_;
    QSpinBox* layer_;
    bool running_ = false;
};

}  // namespace kvw
