#pragma once
#include <QDialog>
#include <QMap>
#include <QString>

#include "app/gui/command_outcome.h"

class QDialogButtonBox;
class QFormLayout;
class QLabel;

namespace kvw {

// A Session-menu dialog whose values the session judges. OK sends them (send()) and waits for
// the session's answer (showOutcome): the dialog closes once the session took them, and
// otherwise stays open with the refusal beside the field it is about (above the buttons when it
// names none), the session unchanged. Cancel closes it and sends nothing.
class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // What OK does: clears the old errors and sends the fields' values.
    void submit();
    // The session's answer to the values sent last.
    void showOutcome(const CommandOutcome& outcome);
    // The refusal shown beside the field of `setting` (refused_setting's names), or the one for
    // no field when `setting` is empty or has no field here; empty when none is shown.
    QString errorText(const QString& setting = {}) const;
    // True while the values sent last wait for the session's answer.
    bool waiting() const { return waiting_; }

protected:
    SettingsDialog(const QString& title, const QString& why, QWidget* parent);
    // A row of the form: `field` under `label`, with the error line of `setting` below it.
    void addField(const QString& label, QWidget* field, const QString& setting);
    // Sends the values; the answer comes to showOutcome. False when a field does not read: it
    // showed why (showError) and sent nothing.
    virtual bool send() = 0;
    void showError(const QString& setting, const QString& message);

private:
    QLabel* errorLabel(const QString& setting) const;

    QFormLayout* form_;
    QDialogButtonBox* buttons_;
    QLabel* general_error_;
    QMap<QString, QLabel*> errors_;  // setting -> the line under its field
    bool waiting_ = false;
};

}  // namespace kvw
