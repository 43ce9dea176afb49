#include "widgets/ring_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <array>

#include "widgets/point_tool_tip.h"
#include "widgets/view_colors.h"

namespace kvw {

namespace {

constexpr int kMargin = 8;
constexpr int kLineHeight = 16;  // a line of the counters above each band
constexpr int kBandHeight = 18;
constexpr int kGap = 8;
constexpr double kReadBar = 3;  // the height of the read ranges' bars under the band

const QColor kSinkColor(120, 120, 120);
const QColor kSelectedColor(Qt::white);

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

// The colour of a held ring row: its largest K/V scale against the layer's largest.
QColor held_color(double relative_scale) {
    return scale_color(ColorScale::Brightness, 0.15 + 0.85 * relative_scale);
}

QColor unscaled_held_color() { return scale_color(ColorScale::Sequence, 0.6); }

// The two parts of the last read, as the band draws them under its slots.
struct ReadPart {
    const char* name;
    int begin, end;
    QColor color;
};

std::array<ReadPart, 2> read_parts(const RingRanges& r) {
    return {ReadPart{"tail part", r.tail_begin, r.tail_end, series_color(0)},
            ReadPart{"head part", r.head_begin, r.head_end, series_color(1)}};
}

QString range_text(int begin, int end) { return QString("[%1,%2)").arg(begin).arg(end); }

}  // namespace

int ring_slot_row(const RingFrame& r, int slot) {
    if (slot < 0 || slot >= r.size) return -1;
    if (slot < r.sinks) return slot < r.filled ? slot : -1;
    const int ring = r.size - r.sinks;
    const int i = ((slot - r.sinks - r.head) % ring + ring) % ring;
    const int row = r.sinks + i;
    return row < r.filled ? row : -1;
}

int ring_pointer_slab_row(const RingFrame& r) { return r.sinks + r.write_pointer; }

QString ring_counters_text(const RingFrame& r, int layer) {
    const RingRanges& read = r.last_read;
    QString text = QString(
                       "layer %1 · T %2 · sinks %3 · filled %4 · wraps %5 · offset %6 · "
                       "slab rows: pointer %7, read %8+%9")
                       .arg(layer)
                       .arg(r.size)
                       .arg(r.sinks)
                       .arg(r.filled)
                       .arg(r.wraps)
                       .arg(r.offset)
                       .arg(ring_pointer_slab_row(r))
                       .arg(range_text(read.tail_begin, read.tail_end),
                            range_text(read.head_begin, read.head_end));
    if (const uint64_t clipped = total_saturated(r); clipped > 0)
        text += QString(" · clipped %1").arg(clipped);
    return text;
}

RingView::RingView(QWidget* parent) : FrameView(parent) {
    setMouseTracking(true);
    const auto box = [](QColor color) {
        return [color](QPainter& p, const QRectF& r) {
            p.fillRect(r, color);
            p.setPen(Qt::gray);
            p.drawRect(r);
        };
    };
    legend_ = ViewLegend({
        {"sink", "Slab rows [0, S): the attention sinks, never overwritten", box(kSinkColor)},
        {"held row",
         "A slot holding a ring row; the brighter, the larger its largest K/V scale against the "
         "layer's largest (one shade when the storage type keeps no scales)",
         [](QPainter& p, const QRectF& r) {
             QLinearGradient g(r.topLeft(), r.topRight());
             g.setColorAt(0, held_color(0));
             g.setColorAt(1, held_color(1));
             p.fillRect(r, g);
         }},
        {"free", "A slot that holds no row yet", box(palette().window().color())},
        {"clipped",
         "Red cap: the row had K/V values clipped by its storage type when it was encoded; the "
         "more opaque, the more values (against the layer's worst row)",
         [](QPainter& p, const QRectF& r) {
             p.fillRect(r, held_color(0.5));
             p.fillRect(r.adjusted(0, 0, 0, -r.height() * 2 / 3), fail_color());
             p.setPen(Qt::gray);  // the cap's edge against a light background
             p.drawRect(r);
         }},
        {"selected", "White cap: the slot holding the row selected in the window",
         [](QPainter& p, const QRectF& r) {
             p.fillRect(r, held_color(0.5));
             p.fillRect(r.adjusted(0, 0, 0, -r.height() / 2), kSelectedColor);
             p.setPen(Qt::gray);
             p.drawRect(r);
         }},
        {"write pointer", "Red line: the slab row the next ring row is written to",
         [](QPainter& p, const QRectF& r) {
             p.setPen(QPen(fail_color(), 2));
             p.drawLine(QPointF(r.center().x(), r.top()), QPointF(r.center().x(), r.bottom()));
         }},
        {"read: tail part",
         "Blue bar under the band: the slab rows the last read assembled first (from the oldest "
         "ring row to the slab's end)",
         [](QPainter& p, const QRectF& r) {
             p.fillRect(QRectF(r.left(), r.bottom() - kReadBar, r.width(), kReadBar),
                        series_color(0));
         }},
        {"read: head part",
         "Orange bar under the band: the slab rows the last read assembled after the tail part "
         "(from the ring's first slot), empty when the window did not wrap",
         [](QPainter& p, const QRectF& r) {
             p.fillRect(QRectF(r.left(), r.bottom() - kReadBar, r.width(), kReadBar),
                        series_color(1));
         }},
    });
    relayout();
}

void RingView::relayout() {
    const int width = this->width() - 2 * kMargin;
    legend_height_ = legend_.layout(QPointF(kMargin, kMargin), width, fontMetrics());
    int with_ring = 0;
    bool counters_fit = true;
    if (frame_)
        for (int l = 0; l < int(frame_->layers.size()); ++l)
            if (const auto& ring = frame_->layers[size_t(l)].ring) {
                ++with_ring;
                counters_fit = counters_fit && fontMetrics().horizontalAdvance(
                                                   ring_counters_text(*ring, l)) <= width;
            }
    // A narrow dock gives the positions a line of their own rather than cut them off.
    counter_lines_ = counters_fit ? 1 : 2;
    setMinimumHeight(2 * kMargin + int(legend_height_) + kGap +
                     std::max(with_ring, 1) * (labelHeight() + kBandHeight + kGap));
}

int RingView::labelHeight() const { return counter_lines_ * kLineHeight; }

void RingView::resizeEvent(QResizeEvent* event) {
    relayout();
    FrameView::resizeEvent(event);
}

void RingView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    relayout();
    update();
}

void RingView::setSelection(int layer, int row, int count) {
    Q_UNUSED(count);  // the slot of the span's first row is marked
    selected_layer_ = layer;
    selected_row_ = row;
    update();
}

QRectF RingView::bandRect(int layer) const {
    const double top = kMargin + legend_height_ + kGap +
                       layer * (labelHeight() + kBandHeight + kGap) + labelHeight();
    return QRectF(kMargin, top, std::max(width() - 2 * kMargin, 1), kBandHeight);
}

QRectF RingView::countersRect(int layer) const {
    const QRectF band = bandRect(layer);
    return QRectF(band.left(), band.top() - labelHeight(), band.width(), labelHeight());
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

QString RingView::slotToolTip(int layer, int slot) const {
    const RingFrame& r = *frame_->layers[size_t(layer)].ring;
    const int row = ring_slot_row(r, slot);
    QString text = QString("layer %1 · slab row %2").arg(layer).arg(slot);
    text += slot < r.sinks ? QString(" (sink)") : QString(" (ring slot %1)").arg(slot - r.sinks);
    text += row >= 0 ? QString(" · logical row %1").arg(row) : QString(" · free");
    if (row >= 0 && size_t(slot) < r.scale_max.size())
        text +=
            QString(" · largest K/V scale %1").arg(double(r.scale_max[size_t(slot)]), 0, 'g', 4);
    if (size_t(slot) < r.saturated.size() && r.saturated[size_t(slot)] > 0)
        text += QString(" · %1 K/V values clipped").arg(r.saturated[size_t(slot)]);
    if (slot == ring_pointer_slab_row(r))
        text += row >= 0 ? "\nwrite pointer: the next ring row overwrites this one"
                         : "\nwrite pointer: the next ring row is written here";
    for (const ReadPart& part : read_parts(r.last_read))
        if (slot >= part.begin && slot < part.end)
            text += QString("\nlast read, %1 %2").arg(part.name, range_text(part.begin, part.end));
    return text;
}

QString RingView::toolTipAt(QPoint point) const {
    if (QString legend = legend_.toolTipAt(point); !legend.isEmpty()) return legend;
    if (!frame_) return {};
    if (const auto hit = slotAt(point)) return slotToolTip(hit->first, hit->second);
    for (int l = 0; l < int(frame_->layers.size()); ++l)
        if (frame_->layers[size_t(l)].ring && countersRect(l).contains(point))
            return "Since the last reset: T slab rows, S sinks, the logical rows filled, the "
                   "times the ring wrapped, the rows written (offset); the write pointer and the "
                   "last read's tail and head parts as slab rows (0 … T − 1, sinks included)";
    return {};
}

bool RingView::event(QEvent* event) {
    if (show_point_tool_tip(this, event, [this](QPoint at) { return toolTipAt(at); })) return true;
    return FrameView::event(event);
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
    p.setPen(palette().text().color());
    if (!frame_ || std::none_of(frame_->layers.begin(), frame_->layers.end(),
                                [](const LayerFrame& l) { return l.ring.has_value(); })) {
        p.drawText(rect(), Qt::AlignCenter, "not a ring layout (layout ring …)");
        return;
    }
    legend_.paint(p);
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
                c = kSinkColor;
            else if (row >= 0)
                c = ring->scale_max.empty() || top_scale <= 0.0f
                        ? unscaled_held_color()
                        : held_color(ring->scale_max[size_t(s)] / top_scale);
            p.fillRect(cell, c);
            // Saturation heat: a red cap over a row with clipped values, the more opaque the
            // more values of its K and V were clipped (relative to the layer's worst row).
            if (row >= 0 && top_saturated > 0 && ring->saturated[size_t(s)] > 0) {
                QColor heat = fail_color();
                heat.setAlphaF(0.35 + 0.65 * double(ring->saturated[size_t(s)]) / top_saturated);
                p.fillRect(cell.adjusted(0, 0, 0, -band.height() * 2 / 3), heat);
            }
            if (l == selected_layer_ && row >= 0 && row == selected_row_)
                p.fillRect(cell.adjusted(0, 0, 0, -band.height() / 2), kSelectedColor);
        }
        // The ranges the last read assembled: tail part, then head part, under the band.
        for (const ReadPart& part : read_parts(ring->last_read))
            p.fillRect(QRectF(band.left() + part.begin * w, band.bottom() - kReadBar,
                              (part.end - part.begin) * w, kReadBar),
                       part.color);
        // The write pointer, at the middle of the slab row the next ring row goes to.
        const double x = band.left() + (ring_pointer_slab_row(*ring) + 0.5) * w;
        p.setPen(QPen(fail_color(), 2));
        p.drawLine(QPointF(x, band.top() - 3), QPointF(x, band.bottom() + 1));
        p.setPen(palette().text().color());
        p.drawRect(band);
        QString counters = ring_counters_text(*ring, l);
        if (counter_lines_ > 1) counters.replace(" · slab rows: ", "\nslab rows: ");
        p.drawText(countersRect(l), Qt::AlignLeft | Qt::AlignVCenter, counters);
    }
}

ViewTable RingView::table() const {
    // One line per layer: the counters, the pointer and the last read's two ranges. The write
    // pointer comes as the ring slot the layout counts in (write_pointer) and as the slab row
    // the read ranges are counted in (write_slab_row).
    ViewTable t{{"layer", "size", "sinks", "filled", "head", "write_pointer", "offset",
                 "overwritten", "wraps", "tail_begin", "tail_end", "head_begin", "head_end",
                 "max_scale", "saturated", "saturated_rows", "write_slab_row"},
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
                                            [](uint32_t c) { return c > 0; })),
                       ring_pointer_slab_row(*r)});
    }
    return t;
}

}  // namespace kvw
