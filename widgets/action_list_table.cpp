#include "widgets/action_list_table.h"

#include "widgets/action_text.h"
#include "widgets/read_only_table.h"
#include "widgets/view_colors.h"

namespace kvw {

ActionListTable::ActionListTable(bool with_outcome, QWidget* parent) : QTableWidget(parent) {
    QStringList headers{"#", "Action", "Rows", "Layers"};
    if (with_outcome) headers << "Outcome";
    setup_read_only_table(this, headers);
}

void ActionListTable::setActions(const ActionList& actions,
                                 const std::vector<ActionOutcome>& outcomes,
                                 const std::vector<int>& numbers) {
    const TableFill fill(this);
    setRowCount(int(actions.size()));
    for (int i = 0; i < int(actions.size()); ++i) {
        const Action& a = actions[size_t(i)];
        const int number = size_t(i) < numbers.size() ? numbers[size_t(i)] : i;
        setItem(i, Index, read_only_cell(QString::number(number)));
        setItem(i, Summary, read_only_cell(action_summary_text(a)));
        setItem(i, Rows, read_only_cell(action_rows_text(a)));
        setItem(i, Layers, read_only_cell(action_layers_text(a)));
        if (columnCount() > Outcome && size_t(i) < outcomes.size()) {
            QTableWidgetItem* item = read_only_cell(outcomes[size_t(i)].text);
            if (!outcomes[size_t(i)].ok) item->setBackground(fail_color());
            setItem(i, Outcome, item);
        }
    }
}

}  // namespace kvw
