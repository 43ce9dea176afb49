#pragma once
#include <QImage>
#include <QString>

namespace kvw {

class FrameView;

// Writes a view's export to `path`, the format chosen by its suffix: .csv or .json for its data
// (FrameView::table(), view_table.h), .png for its pixels. `tick` goes into the JSON. Returns
// an empty string, or what went wrong (an unknown suffix, a file that cannot be written).
QString export_view(FrameView& view, const QString& path, qint64 tick);

// Writes `image` as a PNG to `path` beside it first (write_file_atomically); empty, or why not.
QString save_png(const QImage& image, const QString& path);

// Whether `path` ends in a suffix export_view writes.
bool is_export_path(const QString& path);

}  // namespace kvw
