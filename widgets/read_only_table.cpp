#include "widgets/read_only_table.h"

#include <QHeaderView>
#include <QTableWidget>

namespace kvw {

void setup_read_only_view(QTableView* table) {
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
}

void setup_read_only_table(QTableWidget* table, const QStringList& headers) {
    table->setColumnCount(int(headers.size()));
    table->setHorizontalHeaderLabels(headers);
    setup_read_only_view(table);
}

TableFill::TableFill(QTableWidget* table) : table_(table) {
    table_->setUpdatesEnabled(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
}

TableFill::~TableFill() {
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setUpdatesEnabled(true);
}

QTableWidgetItem* read_only_cell(const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setToolTip(text);
    return item;
}

}  // namespace kvw
