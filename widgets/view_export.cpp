#include "widgets/view_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>

#include "core/io/replacing_file.h"
#include "widgets/frame_view.h"
#include "widgets/view_table.h"

namespace kvw {

bool is_export_path(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == "csv" || suffix == "json" || suffix == "png";
}

namespace {

QString write_bytes(const QByteArray& bytes, const QString& path) {
    try {
        write_file_atomically(path.toStdString(),
                              std::string_view(bytes.constData(), size_t(bytes.size())));
    } catch (const FileWriteError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

QString save_png(const QImage& image, const QString& path) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) return "cannot encode a PNG for " + path;
    return write_bytes(bytes, path);
}

QString export_view(FrameView& view, const QString& path, qint64 tick) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (!is_export_path(path))
        return "cannot export to '" + path + "': the name must end in .csv, .json or .png";
    if (suffix == "png") return save_png(view.grab().toImage(), path);
    const QByteArray bytes = suffix == "csv" ? view_table_csv(view.table()).toUtf8()
                                             : view_table_json(view.table(), view.viewName(), tick);
    return write_bytes(bytes, path);
}

}  // namespace kvw
