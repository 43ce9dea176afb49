#pragma once
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace kvw {

// A view's data as a table, for export (docs/ARCHITECTURE.md §10): what the view draws, in
// numbers rather than pixels, at full precision. Cells are ints, doubles, bools or strings.
struct ViewTable {
    QStringList columns;
    QList<QVariantList> rows;  // each as long as columns
};

// CSV (RFC 4180: a header line, then one line per row; fields with a comma, quote or line break
// are quoted, quotes doubled; floats with 9 significant digits, so a float reads back exactly).
QString view_table_csv(const ViewTable& table);
// {"view": NAME, "tick": N, "columns": [...], "rows": [[...], ...]} with JSON numbers.
QByteArray view_table_json(const ViewTable& table, const QString& view, qint64 tick);

// The text of one cell as CSV writes it.
QString view_cell_text(const QVariant& cell);

}  // namespace kvw
