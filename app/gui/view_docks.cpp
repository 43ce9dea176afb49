#include "app/gui/view_docks.h"

#include <map>

#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>

#include "widgets/view_registry.h"

namespace kvw {

ViewDocks::ViewDocks(QMainWindow* window) : QObject(window) {
    for (const ViewInfo& info : registered_views()) {
        FrameView* view = info.create(nullptr);
        auto* dock = new QDockWidget(info.title, window);
        dock->setObjectName("dock_" + info.name);  // the key of saveState()
        // A view keeps the size it needs to be read and scrolls when its dock is smaller: a
        // small window (1,024 × 700) then neither grows past the screen nor draws one dock's
        // content over the next dock's title.
        auto* scroll = new QScrollArea(dock);
        scroll->setObjectName("scroll_" + info.name);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidgetResizable(true);
        scroll->setWidget(view);
        dock->setWidget(scroll);
        window->addDockWidget(info.area, dock);
        views_.push_back(view);
        docks_.push_back(dock);
        areas_.push_back(info.area);
    }
}

void ViewDocks::arrange(QMainWindow* window) const {
    std::map<Qt::DockWidgetArea, QList<QDockWidget*>> by_area;
    for (size_t i = 0; i < docks_.size(); ++i) by_area[areas_[i]] << docks_[i];
    QList<QDockWidget*> sides;
    const int bottom_height =
        by_area.count(Qt::BottomDockWidgetArea) ? window->height() * 3 / 10 : 0;
    for (auto& [area, docks] : by_area) {
        // Two views share an area well; a third and later become tabs of the second, so that
        // no view is squeezed below what it needs to be read.
        for (int i = 2; i < docks.size(); ++i) window->tabifyDockWidget(docks[1], docks[i]);
        if (docks.size() > 2) docks[1]->raise();
        const QList<QDockWidget*> shown = docks.mid(0, 2);
        const bool side = area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
        // The side columns stand above the bottom area: they share what it leaves.
        const int extent = side ? window->height() - bottom_height : window->width();
        window->resizeDocks(shown, QList<int>(shown.size(), extent / int(shown.size())),
                            side ? Qt::Vertical : Qt::Horizontal);
        if (side) sides << docks.first();
        if (area == Qt::BottomDockWidgetArea)
            window->resizeDocks({docks.first()}, {bottom_height}, Qt::Vertical);
    }
    if (!sides.isEmpty())
        window->resizeDocks(sides, QList<int>(sides.size(), window->width() / int(sides.size())),
                            Qt::Horizontal);
}

QStringList ViewDocks::names() const {
    QStringList names;
    for (const FrameView* v : views_) names << v->viewName();
    return names;
}

FrameView* ViewDocks::view(const QString& name) const {
    for (FrameView* v : views_)
        if (v->viewName() == name) return v;
    return nullptr;
}

QDockWidget* ViewDocks::dock(const QString& name) const {
    for (size_t i = 0; i < views_.size(); ++i)
        if (views_[i]->viewName() == name) return docks_[i];
    return nullptr;
}

void ViewDocks::setLiveFrame(const FramePtr& live, bool past_shown) const {
    for (FrameView* v : views_)
        if (!past_shown || v->showsHistory()) v->setFrame(live);
}

void ViewDocks::setPastFrame(const FramePtr& past, const FramePtr& live) const {
    for (FrameView* v : views_) {
        if (!v->showsHistory()) {
            if (const FramePtr& shown = past ? past : live) v->setFrame(shown);
        }
        v->setShownTick(past ? past->tick : -1);
    }
}

void ViewDocks::setSelection(int layer, int row, int count) const {
    for (FrameView* v : views_) v->setSelection(layer, row, count);
}

}  // namespace kvw
