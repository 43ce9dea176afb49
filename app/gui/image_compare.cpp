#include "app/gui/image_compare.h"

#include <algorithm>
#include <cstdlib>

namespace kvw {

QString ImageDiff::describe(int tolerance) const {
    if (!same_size) return "the image size differs from the golden image's";
    return QString("%1 pixels differ by more than %2 (largest difference %3)")
        .arg(pixels_over)
        .arg(tolerance)
        .arg(max_delta);
}

ImageDiff compare_images(const QImage& actual, const QImage& golden, int tolerance) {
    ImageDiff diff;
    diff.same_size = actual.size() == golden.size();
    if (!diff.same_size) return diff;
    const QImage a = actual.convertToFormat(QImage::Format_ARGB32);
    const QImage g = golden.convertToFormat(QImage::Format_ARGB32);
    diff.marked =
        g.convertToFormat(QImage::Format_Grayscale8).convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < a.height(); ++y) {
        const auto* pa = reinterpret_cast<const QRgb*>(a.constScanLine(y));
        const auto* pg = reinterpret_cast<const QRgb*>(g.constScanLine(y));
        auto* pm = reinterpret_cast<QRgb*>(diff.marked.scanLine(y));
        for (int x = 0; x < a.width(); ++x) {
            const int delta = std::max(
                {std::abs(qRed(pa[x]) - qRed(pg[x])), std::abs(qGreen(pa[x]) - qGreen(pg[x])),
                 std::abs(qBlue(pa[x]) - qBlue(pg[x])), std::abs(qAlpha(pa[x]) - qAlpha(pg[x]))});
            diff.max_delta = std::max(diff.max_delta, delta);
            if (delta > tolerance) {
                ++diff.pixels_over;
                pm[x] = qRgb(255, 0, 0);
            }
        }
    }
    return diff;
}

}  // namespace kvw
