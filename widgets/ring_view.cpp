#include "widgets/ring_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "widgets/view_colors.h"

namespace kvw {

namespace {

constexpr int kMargin = 8;
constexpr int kLabelHeight = 16;  // the counters line above each band
constexpr int kBandHeight = 18;
constexpr int kGap = 8;

float max_scale(const RingFrame& r) {
    float m = 0.0f;
    for (float s : r.scale_max) m = std::max(m, s);
    return m;
}

uint64_t total_saturated(const RingFrame& r) {
    uint64_t n = 0;
    for (uint32_t c : r.saturated) n += c;
    return n;
}

}  // namespace

int ring_slot_row(const RingFrame& r, int slot) {
    if (slot < 0 || slot >= r.size) return -1;
    if (slot < r.sinks) return slot < r.filled ? slot : -1;
    const int ring = r.size - r.sinks;
    const int i = ((slot - r.sinks - r.head) % ring + ring) % ring;
    const int row = r.sinks + i;
    return row < r.filled ? row : -1;
}

RingView::RingView(QWidget* parent) : FrameView(parent) {
    setMinimumHeight(2 * kMargin + kLabelHeight + kBandHeight);
}

void RingView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    int with_ring = 0;
    for (const LayerFrame& l : frame_->layers) with_ring += l.ring.has_value();
    setMinimumHeight(2 * kMargin + std::max(with_ring, 1) * (kLabelHeight + kBandHeight + kGap));
    update();
}

void RingView::setSelection(int layer, int row, int count) {
    Q_UNUSED(count);  // the slot of the span's first row is marked
    selected_layer_ = layer;
    selected_row_ = row;
    update();
}

QRectF RingView::bandRect(int layer) const {
    const double top = kMargin + layer * (kLabelHeight + kBandHeight + kGap) + kLabelHeight;
    return QRectF(kMargin, top, std::max(width() - 2 * kMargin, 1), kBandHeight);
}

std::optional<std::pair<int, int>> RingView::slotAt(QPoint point) const {
    if (!frame_) return std::nullopt;
    for (int l = 0; l < int(frame_->layers.size()); ++l) {
        const auto& ring = frame_->layers[size_t(l)].ring;
        const QRectF band = bandRect(l);
        if (!ring || !band.contains(point)) continue;
        const int slot = int((point.x() - band.left()) / band.width() * ring->size);
        return std::make_pair(l, std::clamp(slot, 0, ring->size - 1));
    }
    return std::nullopt;
}

void RingView::mousePressEvent(QMouseEvent* event) {
    const auto hit = slotAt(event->position().toPoint());
    if (!hit) return;
    const int row = ring_slot_row(*frame_->layers[size_t(hit->first)].ring, hit->second);
    if (row >= 0) emit rowSelected(hit->first, row);
}

void RingView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!frame_ || std::none_of(frame_->layers.begin(), frame_->layers.end(),
                                [](const LayerFrame& l) { return l.ring.has_value(); })) {
        p.setPen(palette().text().color());
        p.drawText(rect(), Qt::AlignCenter, "not a ring layout (layout ring …)");
        return;
    }
    for (int l = 0; l < int(frame_->layers.size()); ++l) {
        const auto& ring = frame_->layers[size_t(l)].ring;
        if (!ring) continue;
        const QRectF band = bandRect(l);
        const double w = band.width() / ring->size;
        const float top_scale = max_scale(*ring);
        const uint32_t top_saturated =
            ring->saturated.empty()
                ? 0
                : *std::max_element(ring->saturated.begin(), ring->saturated.end());
        for (int s = 0; s < ring->size; ++s) {
            const QRectF cell(band.left() + s * w, band.top(), w, band.height());
            const int row = ring_slot_row(*ring, s);
            QColor c = palette().window().color();  // free slot
            if (row >= 0 && s < ring->sinks)
                c = QColor(120, 120, 120);
            else if (row >= 0)
                c = ring->scale_max.empty() || top_scale <= 0.0f
                        ? scale_color(ColorScale::Sequence, 0.6)
                        : scale_color(ColorScale::Brightness,
                                      0.15 + 0.85 * ring->scale_max[size_t(s)] / top_scale);
            p.fillRect(cell, c);
            // Saturation heat: a red cap over a row with clipped values, the more opaque the
            // more values of its K and V were clipped (relative to the layer's worst row).
            if (row >= 0 && top_saturated > 0 && ring->saturated[size_t(s)] > 0) {
                QColor heat = fail_color();
                heat.setAlphaF(0.35 + 0.65 * double(ring->saturated[size_t(s)]) / top_saturated);
                p.fillRect(cell.adjusted(0, 0, 0, -band.height() * 2 / 3), heat);
            }
            if (l == selected_layer_ && row >= 0 && row == selected_row_)
                p.fillRect(cell.adjusted(0, 0, 0, -band.height() / 2), Qt::white);
        }
        // The ranges the last read assembled: tail part, then head part, under the band.
        const RingRanges& r = ring->last_read;
        p.fillRect(QRectF(band.left() + r.tail_begin * w, band.bottom() - 3,
                          (r.tail_end - r.tail_begin) * w, 3),
                   series_color(0));
        p.fillRect(QRectF(band.left() + r.head_begin * w, band.bottom() - 3,
                          (r.head_end - r.head_begin) * w, 3),
                   series_color(1));
        // The write pointer: the slab row the next ring row goes to.
        const double x = band.left() + (ring->sinks + ring->write_pointer + 0.5) * w;
        p.setPen(QPen(fail_color(), 2));
        p.drawLine(QPointF(x, band.top() - 3), QPointF(x, band.bottom() + 1));
        p.setPen(palette().text().color());
        p.drawRect(band);
        const QString clipped =
            top_saturated > 0 ? QString(" · clipped %1").arg(total_saturated(*ring)) : QString();
        p.drawText(QRectF(band.left(), band.top() - kLabelHeight, band.width(), kLabelHeight),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QString("layer %1 · T %2 · sinks %3 · filled %4 · pointer %5 · wraps %6 · "
                           "offset %7 · read [%8,%9)+[%10,%11)")
                           .arg(l)
                           .arg(ring->size)
                           .arg(ring->sinks)
                           .arg(ring->filled)
                           .arg(ring->write_pointer)
                           .arg(ring->wraps)
                           .arg(ring->offset)
                           .arg(r.tail_begin)
                           .arg(r.tail_end)
                           .arg(r.head_begin)
                           .arg(r.head_end) +
                       clipped);
    }
}

ViewTable RingView::table() const {
    // One line per layer: the counters, the pointer and the last read's two ranges.
    ViewTable t{{"layer", "size", "sinks", "filled", "head", "write_pointer", "offset",
                 "overwritten", "wraps", "tail_begin", "tail_end", "head_begin", "head_end",
                 "max_scale", "saturated", "saturated_rows"},
                {}};
    if (!frame_) return t;
    for (int l = 0; l < int(frame_->layers.size()); ++l) {
        const auto& r = frame_->layers[size_t(l)].ring;
        if (!r) continue;
        t.rows.append({l, r->size, r->sinks, r->filled, r->head, r->write_pointer,
                       qint64(r->offset), qint64(r->overwritten), qint64(r->wraps),
                       r->last_read.tail_begin, r->last_read.tail_end, r->last_read.head_begin,
                       r->last_read.head_end, double(max_scale(*r)), qint64(total_saturated(*r)),
                       qint64(std::count_if(r->saturated.begin(), r->saturated.end(),
                                            [](uint32_t c) { return c > 0; }))});
    }
    return t;
}

}  // namespace kvw
