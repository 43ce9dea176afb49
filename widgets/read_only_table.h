#pragma once
#include <QStringList>

class QTableView;
class QTableWidget;
class QTableWidgetItem;

namespace kvw {

// The look every table of the views shares: no row numbers, whole-row selection, no editing,
// columns sized to their contents with the last one taking the rest.
void setup_read_only_view(QTableView* table);
// The same for a table widget, with its headers.
void setup_read_only_table(QTableWidget* table, const QStringList& headers);

// While one lives, cells can be set without the columns being measured again after each
// one: a ResizeToContents header re-measures its columns on every setItem, which made filling
// the record view's 22 × 9 cells take 143 ms (kvw bench ui). The columns are measured once,
// when it ends.
class TableFill {
public:
    explicit TableFill(QTableWidget* table);
    ~TableFill();
    TableFill(const TableFill&) = delete;
    TableFill& operator=(const TableFill&) = delete;

private:
    QTableWidget* table_;
};

// A cell the user can select but not edit; its tooltip repeats the text, which a narrow dock
// may elide.
QTableWidgetItem* read_only_cell(const QString& text);

}  // namespace kvw
