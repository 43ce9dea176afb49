#include "app/gui/main_toolbar.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>

#include "core/backend/backend_registry.h"
#include "core/chat/chat_prompt.h"
#include "core/model/builtin_models.h"
#include "core/policy/policy_table.h"

namespace kvw {

namespace {

// A toolbar button with a drop-down menu of `entries` (text, what to do).
QToolButton* menu_button(QWidget* parent, const QString& text,
                         const std::vector<std::pair<QString, std::function<void()>>>& entries) {
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(button);
    for (const auto& [label, run] : entries)
        QObject::connect(menu->addAction(label), &QAction::triggered, run);
    button->setMenu(menu);
    return button;
}

void select_text(QComboBox* combo, const QString& text) {
    const QSignalBlocker quiet(combo);
    const int index = combo->findText(text);
    if (index >= 0) combo->setCurrentIndex(index);
}

}  // namespace

MainToolBar::MainToolBar(QWidget* parent)
    : QToolBar("Session", parent), policy_bar_(new QToolBar("Policy", parent)) {
    setObjectName("session_toolbar");
    setMovable(false);
    policy_bar_->setObjectName("policy_toolbar");
    policy_bar_->setMovable(false);
    addModelButtons();
    addBackendCombo();
    addSeparator();
    addRunControls();
    addPolicyControls();
    policy_bar_->addSeparator();
    policy_bar_->addAction("Screenshot", this, &MainToolBar::screenshotRequested)
        ->setToolTip("Save a PNG of the window");
    setRunning(false);
}

void MainToolBar::addModelButtons() {
    QToolButton* open =
        menu_button(this, "Open model",
                    {{"GGUF file…",
                      [this] {
                          const QString file = QFileDialog::getOpenFileName(
                              this, "Open a GGUF model", {}, "GGUF models (*.gguf)");
                          if (!file.isEmpty()) emit modelChosen(file);
                      }},
                     {"Hugging Face folder…", [this] {
                          const QString dir = QFileDialog::getExistingDirectory(
                              this,
                              "Open a Hugging Face model folder (config.json, *.safetensors, "
                              "tokenizer.json)");
                          if (!dir.isEmpty()) emit modelChosen(dir);
                      }}});
    open->setObjectName("openModel");
    addWidget(open);
    idle_only_ << open;
    // The models that need no file from the user: the built-in ones (core/model/builtin_models.h)
    // and the synthetic ones with random weights.
    std::vector<std::pair<QString, std::function<void()>>> entries;
    const auto qstring = [](std::string_view s) {
        return QString::fromUtf8(s.data(), qsizetype(s.size()));
    };
    for (const BuiltinModel& m : builtin_models()) {
        const QString spec = "builtin:" + qstring(m.name);
        entries.push_back(
            {spec + " (" + qstring(m.description) + ")", [this, spec] { emit modelChosen(spec); }});
    }
    entries.push_back(
        {"synthetic:tiny (random weights)", [this] { emit modelChosen("synthetic:tiny"); }});
    entries.push_back({"synthetic:tinyllama-shape (random weights, 2.2 GB, slow on CPU)",
                       [this] { emit modelChosen("synthetic:tinyllama-shape"); }});
    QToolButton* builtin = menu_button(this, "Built-in", entries);
    builtin->setObjectName("builtinModel");
    addWidget(builtin);
    idle_only_ << builtin;
}

void MainToolBar::addBackendCombo() {
    backend_ = new QComboBox(this);
    backend_->setToolTip("Where the model runs; changing it reloads the model");
    auto* items = qobject_cast<QStandardItemModel*>(backend_->model());
    std::vector<std::string> names = backend_names();
    if (std::find(names.begin(), names.end(), "cuda") == names.end()) names.push_back("cuda");
    for (const std::string& name : names) {
        backend_->addItem(QString::fromStdString(name));
        std::string why;
        if (backend_available(name, why)) continue;
        // Shown, but greyed out with the reason, so that nobody wonders where CUDA went.
        QStandardItem* item = items->item(backend_->count() - 1);
        item->setEnabled(false);
        item->setToolTip(QString::fromStdString(why.empty() ? "not available here" : why));
        backend_->setToolTip(backend_->toolTip() + "\n" + QString::fromStdString(name) + ": " +
                             item->toolTip());
    }
    connect(backend_, &QComboBox::currentTextChanged, this, &MainToolBar::backendChosen);
    addWidget(backend_);
    idle_only_ << backend_;
}

void MainToolBar::addRunControls() {
    prompt_ = new QLineEdit(this);
    prompt_->setPlaceholderText("Prompt, then Enter");
    prompt_->setMinimumWidth(360);
    connect(prompt_, &QLineEdit::returnPressed, this, &MainToolBar::submitPrompt);
    addWidget(prompt_);
    chat_ = addAction("Chat");
    chat_->setObjectName("chat");
    chat_->setCheckable(true);
    chat_->setEnabled(false);
    chat_->setToolTip("As a chat turn: no model loaded yet");
    QAction* start = addAction("Start", this, &MainToolBar::submitPrompt);
    start->setObjectName("start");
    start->setToolTip("Forget the sequence and prefill the prompt");
    QAction* step = addAction("Step", this, &MainToolBar::stepRequested);
    step->setObjectName("step");
    step->setToolTip("One tick");
    // "Run" before its count, and the count says "ticks": "Step [16] Run" read as "Step 16".
    run_ = addAction("Run", this, [this] {
        if (running_)
            emit pauseRequested();
        else
            emit runRequested(run_ticks_->value());
    });
    run_->setObjectName("run");
    run_ticks_ = new QSpinBox(this);
    run_ticks_->setObjectName("runTicks");
    run_ticks_->setRange(1, 100000);
    run_ticks_->setValue(16);
    run_ticks_->setSuffix(" ticks");
    run_ticks_->setToolTip("Ticks per run");
    addWidget(run_ticks_);
    idle_only_ << prompt_ << run_ticks_;
    idle_only_actions_ << start << step;
    QAction* rebuild = addAction("Rebuild", this, &MainToolBar::rebuildRequested);
    rebuild->setObjectName("rebuild");
    rebuild->setToolTip("Recompute the whole cache from the mirror (pauses a run first)");
    QAction* drift = addAction("Drift", this, &MainToolBar::driftRequested);
    drift->setObjectName("drift");
    drift->setToolTip(
        "Compare the cache with a fresh forward pass over the mirror (pauses a run first)");
}

void MainToolBar::addPolicyControls() {
    proposer_ = new QComboBox(policy_bar_);
    for (const PolicyInfo& p : policy_table()) {  // the one list of policies, with their help
        proposer_->addItem(QString::fromUtf8(p.name.data(), qsizetype(p.name.size())));
        proposer_->setItemData(proposer_->count() - 1,
                               QString::fromUtf8(p.help.data(), qsizetype(p.help.size())),
                               Qt::ToolTipRole);
    }
    proposer_->setToolTip("Step 3 proposer: the actions suggested every tick");
    connect(proposer_, &QComboBox::currentTextChanged, this, &MainToolBar::proposerChosen);
    policy_bar_->addWidget(new QLabel(" Policy ", policy_bar_));
    policy_bar_->addWidget(proposer_);

    rope_ = new QComboBox(policy_bar_);
    for (RopePolicy p : {RopePolicy::FinalIndex, RopePolicy::Reindex, RopePolicy::Original})
        rope_->addItem(rope_policy_name(p), int(p));
    rope_->setToolTip("RoPE position policy: which phase a row's K carries after edits");
    connect(rope_, &QComboBox::currentIndexChanged, this,
            [this] { emit ropePolicyChosen(RopePolicy(rope_->currentData().toInt())); });
    policy_bar_->addWidget(new QLabel(" RoPE ", policy_bar_));
    policy_bar_->addWidget(rope_);

    guard_ = policy_bar_->addAction("Guard", this, &MainToolBar::guardToggled);
    guard_->setCheckable(true);
    guard_->setChecked(true);
    guard_->setToolTip("Re-check the invariants after every primitive");

    layer_ = new QSpinBox(policy_bar_);
    layer_->setRange(0, 0);
    layer_->setToolTip("The layer the views show");
    connect(layer_, &QSpinBox::valueChanged, this, &MainToolBar::layerChosen);
    policy_bar_->addWidget(new QLabel(" Layer ", policy_bar_));
    policy_bar_->addWidget(layer_);
}

QString MainToolBar::backend() const { return backend_->currentText(); }
QString MainToolBar::prompt() const { return prompt_->text(); }
void MainToolBar::setPrompt(const QString& prompt) { prompt_->setText(prompt); }
void MainToolBar::setBackend(const QString& name) { select_text(backend_, name); }

void MainToolBar::setLayer(int layer) {
    const QSignalBlocker quiet(layer_);
    layer_->setValue(layer);
}

void MainToolBar::setRunning(bool running) {
    running_ = running;
    run_->setText(running ? "Pause" : "Run");
    run_->setToolTip(running ? "Stop the run after the current tick" : "Run this many ticks");
    enableForState();
}

void MainToolBar::setLoading(bool loading) {
    loading_ = loading;
    enableForState();
}

void MainToolBar::enableForState() {
    const bool idle = !running_ && !loading_;
    for (QWidget* w : idle_only_) w->setEnabled(idle);
    for (QAction* a : idle_only_actions_) a->setEnabled(idle);
    run_->setEnabled(!loading_);  // Pause stays while a run goes
    chat_->setEnabled(idle && chat_usable_);
}

void MainToolBar::submitPrompt() {
    if (chat_->isEnabled() && chat_->isChecked())
        emit chatPromptSubmitted(prompt_->text());
    else
        emit promptSubmitted(prompt_->text());
}

void MainToolBar::updateChatOption(const Frame& frame) {
    if (!frame.tokenizer || frame.tokenizer == chat_checked_for_) return;
    chat_checked_for_ = frame.tokenizer;
    const ChatTemplateSupport support = chat_template_support(frame.tokenizer->vocabulary());
    chat_usable_ = support.usable();
    if (!support.present)
        chat_->setToolTip("As a chat turn: this model's files carry no chat template");
    else if (support.problem)
        chat_->setToolTip("As a chat turn: this model's chat template cannot be rendered here (" +
                          QString::fromStdString(*support.problem) + ")");
    else
        chat_->setToolTip(
            "As a chat turn: Start sends the prompt as one user turn in the model's chat "
            "template");
    if (!chat_usable_) chat_->setChecked(false);
    enableForState();
}

void MainToolBar::setFrame(FramePtr frame) {
    {
        const QSignalBlocker quiet(layer_);
        layer_->setMaximum(std::max(0, int(frame->layers.size()) - 1));
    }
    updateChatOption(*frame);
    select_text(backend_, QString::fromStdString(frame->backend));
    select_text(proposer_, QString::fromStdString(frame->proposer));
    select_text(rope_, rope_policy_name(frame->rope_policy));
    const QSignalBlocker quiet(guard_);
    guard_->setChecked(frame->guard);
}

}  // namespace kvw
