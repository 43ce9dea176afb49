#include "widgets/view_legend.h"

#include <QPainter>
#include <algorithm>

namespace kvw {

namespace {

constexpr double kTextGap = 4.0;    // swatch to name
constexpr double kEntryGap = 12.0;  // name to the next swatch

}  // namespace

double ViewLegend::layout(QPointF top_left, double width, const QFontMetrics& metrics) {
    swatches_.clear();
    boxes_.clear();
    double x = top_left.x(), y = top_left.y();
    const double right = top_left.x() + std::max(width, 1.0);
    for (const LegendEntry& e : entries_) {
        const double swatch = e.swatch ? kSwatch + kTextGap : 0.0;
        const double w = swatch + metrics.horizontalAdvance(e.name);
        // An entry that does not fit what is left of the line starts the next one (unless it is
        // the first of its line: then it is cut, there being no wider place for it).
        if (x > top_left.x() && x + w > right) {
            x = top_left.x();
            y += kLineHeight;
        }
        boxes_.emplace_back(x, y, w, kLineHeight);
        swatches_.emplace_back(x, y + (kLineHeight - kSwatch) / 2, swatch > 0 ? kSwatch : 0.0,
                               kSwatch);
        x += w + kEntryGap;
    }
    return entries_.empty() ? 0.0 : y + kLineHeight - top_left.y();
}

void ViewLegend::paint(QPainter& painter) const {
    const QColor text = painter.pen().color();
    for (size_t i = 0; i < entries_.size() && i < boxes_.size(); ++i) {
        double name_left = boxes_[i].left();
        if (entries_[i].swatch) {
            painter.save();
            entries_[i].swatch(painter, swatches_[i]);
            painter.restore();
            name_left = swatches_[i].right() + kTextGap;
        }
        painter.setPen(text);
        const QRectF& box = boxes_[i];
        painter.drawText(QRectF(name_left, box.top(), box.right() - name_left, box.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, entries_[i].name);
    }
}

QString ViewLegend::toolTipAt(QPointF point) const {
    for (size_t i = 0; i < boxes_.size(); ++i)
        if (boxes_[i].contains(point)) return entries_[i].explanation;
    return {};
}

}  // namespace kvw
