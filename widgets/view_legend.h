#pragma once
#include <QFontMetrics>
#include <QRectF>
#include <QString>
#include <functional>
#include <vector>

class QPainter;

namespace kvw {

// One entry of a view's legend: a swatch drawn as the view draws the thing it names (none for
// an entry that names a figure, not a colour), a short name beside it, and a sentence that says
// what it means (the entry's tooltip).
struct LegendEntry {
    QString name;
    QString explanation;
    std::function<void(QPainter&, const QRectF&)> swatch;
};

// The legend of a view that paints itself (the ring slab, A/B): entries side by side, flowed
// onto as many lines as the width needs, so that a narrow dock shows every entry whole.
class ViewLegend {
public:
    static constexpr double kLineHeight = 16.0;
    static constexpr double kSwatch = 12.0;

    explicit ViewLegend(std::vector<LegendEntry> entries = {}) : entries_(std::move(entries)) {}

    // Places the entries from `top_left` within `width`; returns the height they take.
    double layout(QPointF top_left, double width, const QFontMetrics& metrics);
    void paint(QPainter& painter) const;
    // The explanation of the entry under `point`; empty when there is none.
    QString toolTipAt(QPointF point) const;

    const std::vector<LegendEntry>& entries() const { return entries_; }
    // Where entry i's swatch and whole entry (swatch and name) were placed by layout().
    QRectF swatchRect(size_t i) const { return swatches_[i]; }
    QRectF entryRect(size_t i) const { return boxes_[i]; }

private:
    std::vector<LegendEntry> entries_;
    std::vector<QRectF> swatches_;
    std::vector<QRectF> boxes_;
};

}  // namespace kvw
