#pragma once
#include <QList>
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

    // The policy, RoPE, guard and layer controls, a toolbar of their own so that a narrow
    // window can put them on a second row instead of behind the overflow button.
    QToolBar* policyBar() const { return policy_bar_; }

    QString backend() const;
    QString prompt() const;
    void setPrompt(const QString& prompt);
    void setBackend(const QString& name);
    void setLayer(int layer);  // without emitting layerChosen
    // While a run goes, "Run" becomes "Pause", and what would start another sequence, model or
    // run (Start, Step, the model and backend choice) is disabled until it ends or is paused.
    void setRunning(bool running);
    // While a model or a trace loads, Start, Step, Run and the model and backend choice are
    // disabled too: a click would wait behind the load and then act on the new session.
    void setLoading(bool loading);

public slots:
    void setFrame(kvw::FramePtr frame);

signals:
    void modelChosen(QString spec);  // a file, a folder or synthetic:NAME
    void backendChosen(QString backend);
    void promptSubmitted(QString prompt);
    // The prompt, sent while "Chat" (as a chat turn) is checked.
    void chatPromptSubmitted(QString prompt);
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
    void enableForState();  // from running_ and loading_
    void submitPrompt();    // as text or as a chat turn, as the Chat option says
    // Enables "Chat" when the frame's model has a template this build can render, else
    // disables it with the reason as its tooltip; done once per model.
    void updateChatOption(const Frame& frame);

    QToolBar* policy_bar_;
    QComboBox* backend_;
    QLineEdit* prompt_;
    QSpinBox* run_ticks_;
    QAction* run_;
    QAction* chat_;
    bool chat_usable_ = false;
    std::shared_ptr<const Tokenizer> chat_checked_for_;  // the tokenizer chat_usable_ is about
    QList<QWidget*> idle_only_;  // enabled only while no run goes and nothing loads
    QList<QAction*> idle_only_actions_;
    QAction* guard_;
    QComboBox* proposer_;
    QComboBox* rope_;
    QSpinBox* layer_;
    bool running_ = false;
    bool loading_ = false;
};

}  // namespace kvw
