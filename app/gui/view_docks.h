#pragma once
#include <vector>

#include <QObject>
#include <QStringList>

#include "widgets/frame_view.h"

class QDockWidget;
class QMainWindow;

namespace kvw {

// One dock per registered view (widgets/view_registry.h), made in registry order, so that a new
// view needs no change here. Hands every Frame and every selection to all of them.
class ViewDocks : public QObject {
    Q_OBJECT
public:
    explicit ViewDocks(QMainWindow* window);

    QStringList names() const;
    FrameView* view(const QString& name) const;  // null when there is none by that name
    QDockWidget* dock(const QString& name) const;
    const std::vector<FrameView*>& views() const { return views_; }

    // The default layout (no saved one): the side areas share the width, the bottom takes a
    // quarter of the height, views in one area share it equally. Call once the window is shown.
    void arrange(QMainWindow* window) const;

    // A live Frame: to every view, or only to those that show the run across ticks
    // (FrameView::showsHistory) while the window shows a past tick (ARCHITECTURE §16).
    void setLiveFrame(const FramePtr& live, bool past_shown) const;
    // The window shows `past` (a past tick's Frame), or the live one again when it is null.
    void setPastFrame(const FramePtr& past, const FramePtr& live) const;
    void setSelection(int layer, int row, int count = 1) const;

private:
    std::vector<FrameView*> views_;
    std::vector<QDockWidget*> docks_;
    std::vector<Qt::DockWidgetArea> areas_;
};

}  // namespace kvw
