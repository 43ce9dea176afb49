#include "widgets/view_export.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>

#include "widgets/frame_view.h"
#include "widgets/view_table.h"

namespace kvw {

bool is_export_path(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == "csv" || suffix == "json" || suffix == "png";
}

QString export_view(FrameView& view, const QString& path, qint64 tick) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (!is_export_path(path))
        return "cannot export to '" + path + "': the name must end in .csv, .json or .png";
    if (suffix == "png")
        return view.grab().toImage().save(path, "PNG") ? QString() : "cannot write " + path;
    const QByteArray bytes = suffix == "csv" ? view_table_csv(view.table()).toUtf8()
                                             : view_table_json(view.table(), view.viewName(), tick);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        return "cannot write " + path + ": " + file.errorString();
    return {};
}

}  // namespace kvw
