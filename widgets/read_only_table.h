#pragma once
#include <QStringList>

class QTableWidget;
class QTableWidgetItem;

namespace kvw {

// The look every table of the views shares: given headers, no row numbers, whole-row selection,
// no editing, columns sized to their contents with the last one taking the rest.
void setup_read_only_table(QTableWidget* table, const QStringList& headers);

// A cell the user can select but not edit; its tooltip repeats the text, which a narrow dock
// may elide.
QTableWidgetItem* read_only_cell(const QString& text);

}  // namespace kvw
