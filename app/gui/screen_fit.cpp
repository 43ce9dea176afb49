#include "app/gui/screen_fit.h"

#include <algorithm>

#include <QWidget>

namespace kvw {

QRect client_rect_on_screen(QRect frame, const QMargins& margins, const QRect& available) {
    frame.setSize(frame.size().boundedTo(available.size()));
    frame.moveLeft(
        std::clamp(frame.left(), available.left(), available.right() - frame.width() + 1));
    frame.moveTop(
        std::clamp(frame.top(), available.top(), available.bottom() - frame.height() + 1));
    return frame.marginsRemoved(margins);
}

QRect cascaded(const QRect& frame, int step, const QRect& available) {
    QRect next(frame.topLeft(),
               frame.size().boundedTo(available.size() - QSize(step, step)).expandedTo({1, 1}));
    next.moveLeft(next.left() + step);
    next.moveTop(next.top() + step);
    if (next.right() > available.right()) next.moveLeft(frame.left() - step);
    if (next.bottom() > available.bottom()) next.moveTop(frame.top() - step);
    return next;
}

QMargins frame_margins(const QWidget& window) {
    const QRect outer = window.frameGeometry();
    const QRect inner = window.geometry();
    return {inner.left() - outer.left(), inner.top() - outer.top(), outer.right() - inner.right(),
            outer.bottom() - inner.bottom()};
}

}  // namespace kvw
