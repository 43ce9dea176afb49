#include "widgets/token_chip_canvas.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "widgets/view_colors.h"

namespace kvw {

namespace {

constexpr int kPadding = 4;  // text to chip edge, left and right
constexpr int kSpacing = 3;  // between chips and between lines
constexpr int kRadius = 3;

}  // namespace

ChipLayout layout_chips(const std::vector<int>& text_widths, int width, int line_height,
                        int padding, int spacing) {
    ChipLayout layout;
    layout.rects.reserve(text_widths.size());
    int x = spacing, y = spacing;
    for (size_t i = 0; i < text_widths.size(); ++i) {
        const int w = std::min(text_widths[i] + 2 * padding, std::max(width - 2 * spacing, 1));
        if (x > spacing && x + w + spacing > width) {
            x = spacing;
            y += line_height + spacing;
        }
        if (x == spacing) layout.line_starts.push_back(int(i));
        layout.rects.emplace_back(x, y, w, line_height);
        x += w + spacing;
    }
    layout.height = text_widths.empty() ? 0 : y + line_height + spacing;
    return layout;
}

TokenChipCanvas::TokenChipCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(false);
    setContextMenuPolicy(Qt::DefaultContextMenu);
    setAutoFillBackground(true);
}

int TokenChipCanvas::lineHeight() const { return fontMetrics().height() + 4; }

void TokenChipCanvas::setChips(std::vector<int> text_widths, ChipFace face) {
    widths_ = std::move(text_widths);
    face_ = std::move(face);
    relayout();
}

void TokenChipCanvas::setSelectedRows(int first, int second, int span) {
    first_ = first;
    second_ = second;
    span_ = std::max(span, 1);
    update();
}

void TokenChipCanvas::setAvailableWidth(int width) {
    if (width == width_) return;
    width_ = width;
    relayout();
}

void TokenChipCanvas::relayout() {
    layout_ = layout_chips(widths_, width_, lineHeight(), kPadding, kSpacing);
    resize(width_, std::max(layout_.height, 1));
    update();
}

QRect TokenChipCanvas::chipRect(int row) const {
    return row >= 0 && row < int(layout_.rects.size()) ? layout_.rects[size_t(row)] : QRect();
}

int TokenChipCanvas::chipAt(const QPoint& pos) const {
    const int line = pos.y() / (lineHeight() + kSpacing);
    if (pos.y() < 0 || line >= int(layout_.line_starts.size())) return -1;
    const int begin = layout_.line_starts[size_t(line)];
    const int end = line + 1 < int(layout_.line_starts.size())
                        ? layout_.line_starts[size_t(line) + 1]
                        : chipCount();
    for (int i = begin; i < end; ++i)
        if (layout_.rects[size_t(i)].contains(pos)) return i;
    return -1;
}

void TokenChipCanvas::paintEvent(QPaintEvent* event) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QRect exposed = event->rect();
    const int line_step = lineHeight() + kSpacing;
    const int first_line = std::max(exposed.top() / line_step, 0);
    const int last_line =
        std::min(exposed.bottom() / line_step, int(layout_.line_starts.size()) - 1);
    if (first_line > last_line) return;
    const int begin = layout_.line_starts[size_t(first_line)];
    const int end = last_line + 1 < int(layout_.line_starts.size())
                        ? layout_.line_starts[size_t(last_line) + 1]
                        : chipCount();
    const QColor selection = palette().color(QPalette::Highlight);
    for (int i = begin; i < end; ++i) {
        const QRect r = layout_.rects[size_t(i)];
        const TokenChip chip = face_(i);
        if ((first_ >= 0 && i >= first_ && i < first_ + span_) || i == second_) {
            // A ring in the spacing around the chip: visible on dark and bright chips alike.
            painter.setPen(Qt::NoPen);
            painter.setBrush(selection);
            painter.drawRoundedRect(
                r.adjusted(-kSpacing + 1, -kSpacing + 1, kSpacing - 1, kSpacing - 1), kRadius + 2,
                kRadius + 2);
        }
        painter.setPen(QPen(chip.background.darker(130), 1));
        painter.setBrush(chip.background);
        painter.drawRoundedRect(r.adjusted(0, 0, -1, -1), kRadius, kRadius);
        painter.setPen(readable_text_color(chip.background));
        const QRect text_rect = r.adjusted(kPadding, 0, -kPadding, 0);
        const QString text =
            widths_[size_t(i)] > text_rect.width()
                ? fontMetrics().elidedText(chip.text, Qt::ElideRight, text_rect.width())
                : chip.text;
        painter.drawText(text_rect, Qt::AlignCenter | Qt::TextSingleLine, text);
    }
}

void TokenChipCanvas::mousePressEvent(QMouseEvent* event) {
    const int row = chipAt(event->pos());
    if (row >= 0 && event->button() == Qt::LeftButton) emit chipClicked(row, event->modifiers());
}

void TokenChipCanvas::contextMenuEvent(QContextMenuEvent* event) {
    emit chipMenuRequested(chipAt(event->pos()), event->globalPos());
}

bool TokenChipCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        emit chipToolTipRequested(chipAt(help->pos()), help->globalPos());
        return true;
    }
    return QWidget::event(event);
}

}  // namespace kvw
