#pragma once
#include <QDialog>

namespace kvw {

// Help ▸ Script language: the script reference (script_help_text) in a scrolling text browser
// under a line that says how scripts run, with a Close button. The dialog is sized to the
// screen's available area, so its button stays on the screen however long the reference grows
// (a message box with the whole text was taller than a 1,600 × 1,000 screen).
class ReferenceDialog : public QDialog {
    Q_OBJECT
public:
    ReferenceDialog(const QString& title, const QString& intro, const QString& text,
                    QWidget* parent = nullptr);
};

}  // namespace kvw
