#include "widgets/action_editor_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include "core/state/action_json.h"
#include "widgets/action_form.h"
#include "widgets/action_list_table.h"
#include "widgets/error_label.h"
#include "widgets/view_colors.h"
#include "widgets/workbench_look.h"

namespace kvw {

ActionEditorView::ActionEditorView(QWidget* parent)
    : FrameView(parent),
      tabs_(new QTabWidget(this)),
      form_(new ActionForm(this)),
      json_(new QPlainTextEdit(this)),
      error_(make_error_label(this, "error")),
      session_error_(make_error_label(this, "sessionError")),
      queued_(new ActionListTable(/*with_outcome=*/false, this)) {
    tabs_->setObjectName("tabs");
    form_->setObjectName("form");
    json_->setObjectName("json");
    queued_->setObjectName("queued");
    json_->setFont(workbench_mono_font());
    json_->setPlaceholderText(
        "[{\"action\":\"delete\",\"pos\":12},\n"
        " {\"action\":\"replace_pair\",\"original_pos1\":45,\"original_pos2\":46,\"new_token_ids\":"
        "[1234]},\n"
        " {\"action\":\"add\",\"token_id\":42,\"layers\":[0,2]}]");

    auto* form_page = new QWidget(this);
    auto* form_layout = new QVBoxLayout(form_page);
    form_layout->addWidget(form_);
    auto* to_json = new QPushButton("Append to JSON list", form_page);
    to_json->setToolTip("Add this action to the list on the JSON tab, to send several at once");
    form_layout->addWidget(to_json, 0, Qt::AlignLeft);
    form_layout->addStretch(1);
    tabs_->addTab(form_page, "Form");
    tabs_->addTab(json_, "JSON");

    auto* queue = new QPushButton("Queue for next tick", this);
    auto* apply = new QPushButton("Apply now", this);
    queue->setObjectName("queue");
    apply->setObjectName("apply");
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(queue);
    buttons->addWidget(apply);
    buttons->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tabs_, 3);
    layout->addWidget(error_);
    layout->addLayout(buttons);
    layout->addWidget(session_error_);
    layout->addWidget(new QLabel("Queued for the next tick", this));
    layout->addWidget(queued_, 2);

    connect(queue, &QPushButton::clicked, this, [this] { submit(false); });
    connect(apply, &QPushButton::clicked, this, [this] { submit(true); });
    connect(to_json, &QPushButton::clicked, this, &ActionEditorView::appendFormToJson);
    connect(tabs_, &QTabWidget::currentChanged, this, [this] { showError({}); });
    // What was edited last is what the buttons send (a script sets the text without a click
    // on the tab).
    connect(json_, &QPlainTextEdit::textChanged, this, [this] { setCurrentTab(JsonTab); });
}

void ActionEditorView::setCurrentTab(Tab tab) { tabs_->setCurrentIndex(int(tab)); }

void ActionEditorView::setJsonText(const QString& text) { json_->setPlainText(text); }

QString ActionEditorView::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void ActionEditorView::setFrame(FramePtr frame) {
    frame_ = frame;
    session_error_->setText("Session: " + QString::fromStdString(frame->last_error));
    session_error_->setVisible(!frame->last_error.empty());
    queued_->setActions(std::shared_ptr<const ActionList>(frame, &frame->injected),
                        frame->tokenizer);
    form_->setTokenizer(frame->tokenizer);
}

void ActionEditorView::setSelection(int layer, int row, int /*count*/) {
    layer_ = layer;
    form_->setRow(row);
}

bool ActionEditorView::submit(bool apply_now) {
    return tabs_->currentIndex() == JsonTab ? submitJson(apply_now) : submitForm(apply_now);
}

bool ActionEditorView::submitJson(bool apply_now) {
    ActionList list;
    try {
        list = parse_action_list(json_->toPlainText().toStdString());
    } catch (const ActionParseError& e) {
        showError(QString::fromStdString(e.what()));
        markJsonLine(e.line());
        return false;
    }
    if (list.empty()) {
        showError("The list is empty: nothing to send");
        return false;
    }
    showError({});
    emit actionsRequested(list, apply_now);
    return true;
}

bool ActionEditorView::submitForm(bool apply_now) {
    const ActionForm::Result r = form_->read();
    if (!r.error.isEmpty()) {
        showError(r.error);
        return false;
    }
    showError({});
    if (r.action)
        emit actionsRequested({*r.action}, apply_now);
    else
        emit textActionRequested(r.text_kind, layer_, r.pos1, r.pos2, r.text, apply_now);
    return true;
}

void ActionEditorView::appendFormToJson() {
    const ActionForm::Result r = form_->read();
    if (!r.action) {
        showError(r.error.isEmpty() ? "Text needs the session's tokenizer: send it from the form"
                                    : r.error);
        return;
    }
    // Rewritten one action per line, the list then stays valid and easy to edit.
    ActionList list;
    try {
        list = parse_action_list(json_->toPlainText().toStdString());
    } catch (const ActionParseError& e) {
        setCurrentTab(JsonTab);
        showError("Fix the JSON list first: " + QString::fromStdString(e.what()));
        markJsonLine(e.line());
        return;
    }
    list.push_back(*r.action);
    QStringList lines;
    for (const Action& a : list) lines << QString::fromStdString(to_json(a));
    json_->setPlainText(lines.join('\n'));  // shows the JSON tab
    showError({});
}

void ActionEditorView::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
    if (message.isEmpty()) json_->setExtraSelections({});
}

void ActionEditorView::markJsonLine(int line) {
    const QTextBlock block = json_->document()->findBlockByNumber(line - 1);
    if (line <= 0 || !block.isValid()) return;
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(fail_color());
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    mark.cursor = QTextCursor(block);
    json_->setExtraSelections({mark});
}

ViewTable ActionEditorView::table() const {
    // The queue: what the next tick will apply.
    ViewTable t{{"index", "action"}, {}};
    if (!frame_) return t;
    for (size_t i = 0; i < frame_->injected.size(); ++i)
        t.rows.append({int(i), QString::fromStdString(to_json(frame_->injected[i]))});
    return t;
}

}  // namespace kvw
