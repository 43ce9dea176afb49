#include "app/gui/budget_dialog.h"

#include <limits>

#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QStringList>

#include "core/policy/policy_table.h"

namespace kvw {

namespace {

// Counts from 0: the session judges the rest (an empty window among it) and says why.
QSpinBox* count_box(const char* name, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(0, std::numeric_limits<int>::max());
    return box;
}

// The policies that keep S + B + W rows, from the policy table.
QString selective_policies() {
    QStringList names;
    for (const PolicyInfo& p : policy_table())
        if (p.selective) names << QString::fromUtf8(p.name.data(), qsizetype(p.name.size()));
    return names.join(", ");
}

}  // namespace

BudgetDialog::BudgetDialog(const PolicyOptions& options, const QString& proposer, QWidget* parent)
    : SettingsDialog("Policy budget",
                     "Rows per layer a selective policy (" + selective_policies() +
                         ") keeps: S sinks, B high-value rows, W window rows; the random "
                         "policy's seed. The session runs " +
                         proposer + ", which is made again with them.",
                     parent),
      sink_(count_box("sink", this)),
      budget_(count_box("budget", this)),
      window_(count_box("window", this)),
      seed_(new QLineEdit(this)) {
    seed_->setObjectName("seed");
    seed_->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]*"), seed_));
    addField("S (sink rows)", sink_, "sink");
    addField("B (high-value rows)", budget_, "budget");
    addField("W (window rows)", window_, "window");
    addField("Seed (random)", seed_, "seed");
    setBudget(options.budget);
    setSeed(QString::number(options.seed));
}

void BudgetDialog::setBudget(const PolicyBudget& budget) {
    sink_->setValue(budget.sink);
    budget_->setValue(budget.budget);
    window_->setValue(budget.window);
}

void BudgetDialog::setSeed(const QString& seed) { seed_->setText(seed); }

bool BudgetDialog::send() {
    bool ok = false;
    const quint64 seed = seed_->text().toULongLong(&ok);
    if (!ok) {
        showError("seed", QString("seed '%1' is not a whole number from 0 to %2")
                              .arg(seed_->text())
                              .arg(std::numeric_limits<quint64>::max()));
        return false;
    }
    emit budgetChosen({sink_->value(), budget_->value(), window_->value()}, seed);
    return true;
}

}  // namespace kvw
