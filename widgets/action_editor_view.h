#pragma once
#include "widgets/frame_view.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace kvw {

class ActionForm;
class ActionListTable;

// Builds action lists by hand: a form for one action or a JSON editor for a whole list
// (parse_action_list's format), queued for the next tick or applied now. A list that does not
// parse, or a form field that does not read, is shown inline in red and nothing is sent; what
// the session then rejects in pre-flight comes back as frame.last_error, shown below with the
// list queued for the next tick (frame.injected).
class ActionEditorView : public FrameView {
    Q_OBJECT
public:
    explicit ActionEditorView(QWidget* parent = nullptr);
    QString viewName() const override { return "actions"; }
    ViewTable table() const override;

    enum Tab { FormTab, JsonTab };
    void setCurrentTab(Tab tab);
    void setJsonText(const QString& text);
    // What the buttons do on the current tab; false (and the error shown) when nothing was sent.
    bool submit(bool apply_now);
    QString errorText() const;

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

private:
    bool submitJson(bool apply_now);
    bool submitForm(bool apply_now);
    void appendFormToJson();
    void showError(const QString& message);
    void markJsonLine(int line);

    FramePtr frame_;
    int layer_ = 0;
    QTabWidget* tabs_;
    ActionForm* form_;
    QPlainTextEdit* json_;
    QLabel* error_;
    QLabel* session_error_;
    ActionListTable* queued_;
};

}  // namespace kvw
