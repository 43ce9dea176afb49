#pragma once
#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

namespace kvw {

// Answers a QEvent::ToolTip on `widget` with what `text_at(point)` says of the point under the
// mouse, hiding the tip where it says nothing; false for any other event. The views whose parts
// are painted rather than widgets (map cells, bands, legends) explain each part this way.
template <typename TextAt>
bool show_point_tool_tip(QWidget* widget, QEvent* event, TextAt&& text_at) {
    if (event->type() != QEvent::ToolTip) return false;
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = text_at(help->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(help->globalPos(), text, widget);
    return true;
}

}  // namespace kvw
