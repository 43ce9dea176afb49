#pragma once
#include "app/gui/settings_dialog.h"
#include "core/policy/policy_options.h"

class QLineEdit;
class QSpinBox;

namespace kvw {

// The Session menu's "Policy budget…" (ARCHITECTURE §12): a selective policy's S sinks,
// B high-value rows and W window rows per layer, and the random policy's seed, starting at what
// the session runs. OK sends them as the `.kvs` `budget` command does (budgetChosen, which the
// window hands to Session::set_policy_options); a refusal shows beside its field.
class BudgetDialog : public SettingsDialog {
    Q_OBJECT
public:
    // proposer: the policy the session runs now, named in the text.
    BudgetDialog(const PolicyOptions& options, const QString& proposer, QWidget* parent = nullptr);

    void setBudget(const PolicyBudget& budget);
    void setSeed(const QString& seed);

signals:
    void budgetChosen(const kvw::PolicyBudget& budget, quint64 seed);

protected:
    bool send() override;

private:
    QSpinBox* sink_;
    QSpinBox* budget_;
    QSpinBox* window_;
    QLineEdit* seed_;
};

}  // namespace kvw
