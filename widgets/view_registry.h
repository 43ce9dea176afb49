#pragma once
#include <functional>
#include <vector>

#include <QString>
#include <Qt>

class QWidget;

namespace kvw {

class FrameView;

// One entry per view of the main window; the window makes a dock for each, in this order.
struct ViewInfo {
    QString name;   // FrameView::viewName()
    QString title;  // the dock's title
    Qt::DockWidgetArea area;
    std::function<FrameView*(QWidget* parent)> create;
};

const std::vector<ViewInfo>& registered_views();

}  // namespace kvw
