#pragma once
#include <QMargins>
#include <QRect>

class QWidget;

namespace kvw {

// The client geometry that puts a window wholly inside `available` (a screen's available
// area), as near to the frame rectangle `frame` as fits: the frame (client area plus
// `margins`, the title bar and borders) is shrunk to the area and moved into it.
QRect client_rect_on_screen(QRect frame, const QMargins& margins, const QRect& available);

// The frame rectangle of a window cascaded from one whose frame is `frame`: `step` pixels right
// and down where `available` has room for it, else left or up; as large as `frame` but no
// larger than the area less one step, so that the two stay apart even when `frame` fills it.
QRect cascaded(const QRect& frame, int step, const QRect& available);

// What the window system adds around `window`'s client area; none before it is first shown.
QMargins frame_margins(const QWidget& window);

}  // namespace kvw
