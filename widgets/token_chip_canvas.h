#pragma once
#include <QColor>
#include <QHash>
#include <QRect>
#include <QString>
#include <QWidget>
#include <vector>

namespace kvw {

// One token of the strip as drawn.
struct TokenChip {
    QString text;  // visible_piece()
    QColor background;
    int text_width = 0;  // measured once per frame
};

// Where chips go when they wrap at `width`: left to right, then the next line. A chip wider
// than a line gets a line of its own, cut to the width.
struct ChipLayout {
    std::vector<QRect> rects;      // [chip]
    std::vector<int> line_starts;  // [line] index of its first chip
    int height = 0;
};
ChipLayout layout_chips(const std::vector<TokenChip>& chips, int width, int line_height,
                        int padding, int spacing);

// Every token of one layer as a chip, painted by this one widget from a cached layout (one
// QWidget per token would not survive thousands of rows). Lives in a scroll area; the owner
// calls setAvailableWidth() when the viewport resizes.
class TokenChipCanvas : public QWidget {
    Q_OBJECT
public:
    explicit TokenChipCanvas(QWidget* parent = nullptr);

    void setChips(std::vector<TokenChip> chips);
    // Rings chips [first, first + span) and `second` (-1: none).
    void setSelectedRows(int first, int second, int span = 1);
    void setAvailableWidth(int width);

    // The chip under a point, or -1.
    int chipAt(const QPoint& pos) const;
    QRect chipRect(int row) const;
    int chipCount() const { return int(chips_.size()); }
    // Measures a chip's text in this widget's font; remembered, because the same pieces come
    // back with every frame.
    int textWidth(const QString& text);

signals:
    void chipClicked(int row, Qt::KeyboardModifiers modifiers);
    void chipMenuRequested(int row, const QPoint& global_pos);
    void chipToolTipRequested(int row, const QPoint& global_pos);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void relayout();
    int lineHeight() const;

    std::vector<TokenChip> chips_;
    ChipLayout layout_;
    QHash<QString, int> widths_;
    int width_ = 400;
    int first_ = -1;
    int second_ = -1;
    int span_ = 1;
};

}  // namespace kvw
