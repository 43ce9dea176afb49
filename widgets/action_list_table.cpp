#include "widgets/action_list_table.h"

#include <QHeaderView>

#include "widgets/action_text.h"
#include "widgets/read_only_table.h"
#include "widgets/view_colors.h"

namespace kvw {

ActionListModel::ActionListModel(bool with_outcome, QObject* parent)
    : QAbstractTableModel(parent), with_outcome_(with_outcome) {}

void ActionListModel::setActions(std::shared_ptr<const ActionList> actions,
                                 std::vector<ActionOutcome> outcomes, std::vector<int> numbers,
                                 std::shared_ptr<const Tokenizer> tokenizer) {
    beginResetModel();
    actions_ = std::move(actions);
    outcomes_ = std::move(outcomes);
    numbers_ = std::move(numbers);
    tokenizer_ = std::move(tokenizer);
    endResetModel();
}

int ActionListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(size());
}

int ActionListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : with_outcome_ ? 5 : 4;
}

QString ActionListModel::text(int row, int column) const {
    if (row < 0 || size_t(row) >= size()) return {};
    const Action& a = (*actions_)[size_t(row)];
    switch (column) {
        case Index:
            return QString::number(size_t(row) < numbers_.size() ? numbers_[size_t(row)] : row);
        case Summary: return action_summary_text(a, tokenizer_.get());
        case Rows: return action_rows_text(a);
        case Layers: return action_layers_text(a);
        case Outcome:
            return size_t(row) < outcomes_.size() ? outcomes_[size_t(row)].text : QString();
        default: return {};
    }
}

QVariant ActionListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (role == Qt::ToolTipRole && index.column() == Summary && tokenizer_)  // pieces, then ids
        return text(index.row(), Summary) +
               "\nids: " + action_summary_text((*actions_)[size_t(index.row())]);
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole)  // the tooltip: a narrow dock elides
        return text(index.row(), index.column());
    if (role == Qt::BackgroundRole && index.column() == Outcome &&
        size_t(index.row()) < outcomes_.size() && !outcomes_[size_t(index.row())].ok)
        return fail_color();
    return {};
}

QVariant ActionListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kHeaders[] = {"#", "Action", "Rows", "Layers", "Outcome"};
    return section >= 0 && section < columnCount() ? QString(kHeaders[section]) : QVariant();
}

ActionListTable::ActionListTable(bool with_outcome, QWidget* parent)
    : QTableView(parent), model_(new ActionListModel(with_outcome, this)) {
    setModel(model_);
    setup_read_only_view(this);
    // Column widths from the rows on screen and a sample of 200 more, not Qt's default 1,000:
    // every Frame resets the model, and the sample is what a long list costs then.
    horizontalHeader()->setResizeContentsPrecision(200);
}

void ActionListTable::setActions(std::shared_ptr<const ActionList> actions,
                                 std::shared_ptr<const Tokenizer> tokenizer,
                                 std::vector<ActionOutcome> outcomes, std::vector<int> numbers) {
    model_->setActions(std::move(actions), std::move(outcomes), std::move(numbers),
                       std::move(tokenizer));
}

}  // namespace kvw
