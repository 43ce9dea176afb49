#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <QTableView>
#include <memory>
#include <vector>

#include "core/model/tokenizer.h"
#include "core/state/action.h"

namespace kvw {

// What became of one action of a list, for the outcome column.
struct ActionOutcome {
    QString text;
    bool ok = true;  // false: the cell is marked as a failure (red, and the text says why)
};

// An action list as table rows: #, action, rows, layers and, when asked for, outcome. A cell's
// text is made when Qt asks for it, that is for the rows on screen (and the rows the header
// samples to size its columns), so a list of 100,000 appends costs what its visible rows cost.
class ActionListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Index, Summary, Rows, Layers, Outcome };

    ActionListModel(bool with_outcome, QObject* parent = nullptr);

    // actions: shared with the Frame that holds them (an aliasing pointer), not copied.
    // tokenizer: the new tokens are shown as its pieces (the ids in the tooltip); null: as ids.
    void setActions(std::shared_ptr<const ActionList> actions, std::vector<ActionOutcome> outcomes,
                    std::vector<int> numbers, std::shared_ptr<const Tokenizer> tokenizer);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    QString text(int row, int column) const;

private:
    bool with_outcome_;
    std::shared_ptr<const ActionList> actions_;
    size_t size() const { return actions_ ? actions_->size() : 0; }
    std::vector<ActionOutcome> outcomes_;
    std::vector<int> numbers_;
    std::shared_ptr<const Tokenizer> tokenizer_;
};

// A read-only table of an action list in its order. Shared by the tick inspector (the list as
// applied) and the action editor (the list queued for the next tick).
class ActionListTable : public QTableView {
    Q_OBJECT
public:
    explicit ActionListTable(bool with_outcome, QWidget* parent = nullptr);

    // outcomes: one per action (or empty when the table has no outcome column); numbers: what
    // the # column says of each action (empty: its index in `actions`); tokenizer: the new
    // tokens' pieces are shown (null: their ids).
    void setActions(std::shared_ptr<const ActionList> actions,
                    std::shared_ptr<const Tokenizer> tokenizer,
                    std::vector<ActionOutcome> outcomes = {}, std::vector<int> numbers = {});

    using Column = ActionListModel::Column;
    static constexpr Column Index = ActionListModel::Index, Summary = ActionListModel::Summary,
                            Rows = ActionListModel::Rows, Layers = ActionListModel::Layers,
                            Outcome = ActionListModel::Outcome;

    int rowCount() const { return model_->rowCount(); }
    // What cell (row, column) shows.
    QString text(int row, int column) const { return model_->text(row, column); }

private:
    ActionListModel* model_;
};

}  // namespace kvw
