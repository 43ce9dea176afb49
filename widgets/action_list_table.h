#pragma once
#include <QString>
#include <QTableWidget>
#include <vector>

#include "core/state/action.h"

namespace kvw {

// What became of one action of a list, for the outcome column.
struct ActionOutcome {
    QString text;
    bool ok = true;  // false: the cell is marked as a failure (red, and the text says why)
};

// A read-only table of an action list in its order: #, action, rows, layers and, when asked
// for, outcome. Shared by the tick inspector (the list as applied) and the action editor (the
// list queued for the next tick).
class ActionListTable : public QTableWidget {
    Q_OBJECT
public:
    explicit ActionListTable(bool with_outcome, QWidget* parent = nullptr);

    // outcomes: one per action (or empty when the table has no outcome column); numbers: what
    // the # column says of each action (empty: its index in `actions`).
    void setActions(const ActionList& actions, const std::vector<ActionOutcome>& outcomes = {},
                    const std::vector<int>& numbers = {});

    enum Column { Index, Summary, Rows, Layers, Outcome };
};

}  // namespace kvw
