#include "app/gui/settings_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "widgets/error_label.h"

namespace kvw {

SettingsDialog::SettingsDialog(const QString& title, const QString& why, QWidget* parent)
    : QDialog(parent),
      form_(new QFormLayout),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)),
      general_error_(make_error_label(this)) {
    setWindowTitle(title);
    general_error_->setObjectName("error");
    auto* text = new QLabel(why, this);
    text->setWordWrap(true);
    // OK waits for the session; the dialog closes when the session took the values.
    connect(buttons_, &QDialogButtonBox::accepted, this, &SettingsDialog::submit);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    // Wide enough for a sentence of an error beside a field; taller when one shows.
    text->setMinimumWidth(440);
    layout->setSizeConstraint(QLayout::SetMinimumSize);
    layout->addWidget(text);
    layout->addLayout(form_);
    layout->addWidget(general_error_);
    layout->addWidget(buttons_);
}

void SettingsDialog::addField(const QString& label, QWidget* field, const QString& setting) {
    auto* cell = new QWidget(this);
    auto* column = new QVBoxLayout(cell);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addWidget(field);
    QLabel* error = make_error_label(cell);
    error->setObjectName(setting + "Error");
    column->addWidget(error);
    errors_.insert(setting, error);
    form_->addRow(label, cell);
}

QLabel* SettingsDialog::errorLabel(const QString& setting) const {
    return errors_.value(setting, general_error_);
}

void SettingsDialog::showError(const QString& setting, const QString& message) {
    QLabel* label = errorLabel(setting);
    label->setText(message);
    label->show();
    adjustSize();
}

void SettingsDialog::submit() {
    if (waiting_) return;
    general_error_->hide();
    for (QLabel* label : std::as_const(errors_)) label->hide();
    waiting_ = send();
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(!waiting_);
}

void SettingsDialog::showOutcome(const CommandOutcome& outcome) {
    waiting_ = false;
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(true);
    if (outcome.done()) {
        accept();
        return;
    }
    showError(outcome.setting, outcome.error);
}

QString SettingsDialog::errorText(const QString& setting) const {
    const QLabel* label = errorLabel(setting);
    return label->isHidden() ? QString() : label->text();
}

}  // namespace kvw
