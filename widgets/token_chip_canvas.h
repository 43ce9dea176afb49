#pragma once
#include <QColor>
#include <QRect>
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

namespace kvw {

// One token of the strip as drawn.
struct TokenChip {
    QString text;  // visible_piece()
    QColor background;
};

// A row's chip, made when the canvas paints that row's line: a strip of 100,000 rows makes the
// few hundred chips on screen per repaint, not 100,000 (ARCHITECTURE §7.1).
using ChipFace = std::function<TokenChip(int row)>;

// Where chips go when they wrap at `width`: left to right, then the next line. A chip wider
// than a line gets a line of its own, cut to the width.
struct ChipLayout {
    std::vector<QRect> rects;      // [chip]
    std::vector<int> line_starts;  // [line] index of its first chip
    int height = 0;
};
ChipLayout layout_chips(const std::vector<int>& text_widths, int width, int line_height,
                        int padding, int spacing);

// Every token of one layer as a chip, painted by this one widget from a cached layout (one
// QWidget per token would not survive thousands of rows). Lives in a scroll area; the owner
// calls setAvailableWidth() when the viewport resizes, and setChips() again when the font
// changes (the widths are the owner's, measured with textWidth()).
class TokenChipCanvas : public QWidget {
    Q_OBJECT
public:
    explicit TokenChipCanvas(QWidget* parent = nullptr);

    // One chip per row: its text's width in this widget's font (the layout needs every row's)
    // and how to make the chip when its line is painted.
    void setChips(std::vector<int> text_widths, ChipFace face);
    // Rings chips [first, first + span) and `second` (-1: none).
    void setSelectedRows(int first, int second, int span = 1);
    void setAvailableWidth(int width);

    // The chip under a point, or -1.
    int chipAt(const QPoint& pos) const;
    QRect chipRect(int row) const;
    int chipCount() const { return int(widths_.size()); }
    int textWidth(const QString& text) const { return fontMetrics().horizontalAdvance(text); }

signals:
    void chipClicked(int row, Qt::KeyboardModifiers modifiers);
    void chipMenuRequested(int row, const QPoint& global_pos);
    void chipToolTipRequested(int row, const QPoint& global_pos);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    void relayout();
    int lineHeight() const;

    std::vector<int> widths_;  // [row] text width
    ChipFace face_;
    ChipLayout layout_;
    int width_ = 400;
    int first_ = -1;
    int second_ = -1;
    int span_ = 1;
};

}  // namespace kvw
