#include "widgets/view_table.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

namespace kvw {

namespace {

QString csv_field(const QString& text) {
    if (!text.contains(',') && !text.contains('"') && !text.contains('\n') && !text.contains('\r'))
        return text;
    QString quoted = text;
    quoted.replace('"', "\"\"");
    return '"' + quoted + '"';
}

QJsonValue json_cell(const QVariant& cell) {
    // An empty cell (a row a layer does not hold, drift not measured) is null.
    if (!cell.isValid()) return QJsonValue();
    switch (cell.typeId()) {
        case QMetaType::Bool: return cell.toBool();
        case QMetaType::Int:
        case QMetaType::LongLong: return double(cell.toLongLong());
        case QMetaType::Float:
        case QMetaType::Double: {
            // JSON has no NaN or infinity: null stands for a value that is not a number.
            const double v = cell.toDouble();
            return std::isfinite(v) ? QJsonValue(v) : QJsonValue();
        }
        default: return cell.toString();
    }
}

}  // namespace

QString view_cell_text(const QVariant& cell) {
    switch (cell.typeId()) {
        case QMetaType::Bool: return cell.toBool() ? "true" : "false";
        case QMetaType::Float: return QString::number(double(cell.toFloat()), 'g', 9);
        case QMetaType::Double: return QString::number(cell.toDouble(), 'g', 17);
        default: return cell.toString();
    }
}

QString view_table_csv(const ViewTable& table) {
    QStringList lines;
    QStringList header;
    for (const QString& c : table.columns) header << csv_field(c);
    lines << header.join(',');
    for (const QVariantList& row : table.rows) {
        QStringList fields;
        for (const QVariant& cell : row) fields << csv_field(view_cell_text(cell));
        lines << fields.join(',');
    }
    return lines.join("\r\n") + "\r\n";
}

QByteArray view_table_json(const ViewTable& table, const QString& view, qint64 tick) {
    QJsonArray rows;
    for (const QVariantList& row : table.rows) {
        QJsonArray cells;
        for (const QVariant& cell : row) cells.append(json_cell(cell));
        rows.append(cells);
    }
    QJsonObject doc{{"view", view},
                    {"tick", double(tick)},
                    {"columns", QJsonArray::fromStringList(table.columns)},
                    {"rows", rows}};
    return QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

}  // namespace kvw
