#include "widgets/wlod_tree_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "widgets/view_colors.h"

namespace kvw {

namespace {

constexpr double kMargin = 6.0;
constexpr double kLegend = 18.0;      // the legend line at the top
constexpr double kLabelWidth = 28.0;  // "L2" .. "L0" on the left

QColor in_context_color(InContext how) {
    switch (how) {
        case InContext::AsTokens: return QColor(0x4e, 0x79, 0xa7);  // blue: raw tokens
        case InContext::AsGist: return QColor(0xf2, 0x8e, 0x2b);    // orange: one gist row
        case InContext::Covered: return QColor(0xba, 0xb0, 0xac);   // grey: under a gist
        case InContext::Expanded: return QColor(0xe8, 0xe8, 0xe8);  // pale: finer rows show it
    }
    return Qt::black;
}

}  // namespace

WlodTreeView::WlodTreeView(QWidget* parent) : FrameView(parent) {
    setMinimumHeight(60);
    setAutoFillBackground(true);
}

void WlodTreeView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    update();
}

void WlodTreeView::setSelection(int layer, int row, int count) {
    layer_ = std::max(layer, 0);
    selected_row_ = row;
    selected_count_ = std::max(count, 1);
    update();
}

int64_t WlodTreeView::leafCount() const {
    if (!frame_ || size_t(layer_) >= frame_->wlod.size()) return 0;
    const std::vector<WlodNode>& blocks = frame_->wlod[size_t(layer_)].levels[0];
    return blocks.empty() ? 0 : blocks.back().end_leaf;
}

QRectF WlodTreeView::nodeRect(int level, int64_t first_leaf, int64_t end_leaf) const {
    const double x0 = kMargin + kLabelWidth;
    const double w = std::max(1.0, width() - x0 - kMargin);
    const double band = (height() - kLegend - 2 * kMargin) / 3.0;
    const double scale = w / double(std::max<int64_t>(leafCount(), 1));
    const double top = kLegend + kMargin + band * (2 - level);
    return {x0 + scale * double(first_leaf), top, scale * double(end_leaf - first_leaf), band - 2};
}

QRectF WlodTreeView::nodeCell(int level, int64_t index) const {
    if (!frame_ || size_t(layer_) >= frame_->wlod.size() || level < 0 || level > 2) return {};
    const std::vector<WlodNode>& nodes = frame_->wlod[size_t(layer_)].levels[level];
    if (index < 0 || index >= int64_t(nodes.size())) return {};
    const WlodNode& n = nodes[size_t(index)];
    return nodeRect(level, n.first_leaf, n.end_leaf);
}

std::pair<int, int64_t> WlodTreeView::nodeAt(QPointF p) const {
    if (!frame_ || size_t(layer_) >= frame_->wlod.size()) return {-1, 0};
    for (int level = 0; level < 3; ++level)
        for (const WlodNode& n : frame_->wlod[size_t(layer_)].levels[level])
            if (nodeRect(n.level, n.first_leaf, n.end_leaf).contains(p)) return {level, n.index};
    return {-1, 0};
}

void WlodTreeView::mousePressEvent(QMouseEvent* event) {
    const auto [level, index] = nodeAt(event->position());
    if (level < 0) return;
    const WlodNode& n = frame_->wlod[size_t(layer_)].levels[level][size_t(index)];
    if (n.first_row >= 0) emit rowsSelected(layer_, n.first_row, n.rows);
}

void WlodTreeView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!frame_ || frame_->wlod.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
                   "wLOD is off: Session → wLOD tree…, `wlod K W_MAX` in a script, --wlod-k K");
        return;
    }
    const int layer = std::min(layer_, int(frame_->wlod.size()) - 1);
    const WlodLayerFrame& wf = frame_->wlod[size_t(layer)];

    // Legend: the four ways a node can be in the working context, and the invalidation marks.
    double x = kMargin;
    const QFontMetrics fm(font());
    for (InContext how :
         {InContext::AsTokens, InContext::AsGist, InContext::Covered, InContext::Expanded}) {
        p.fillRect(QRectF(x, kMargin, 10, 10), in_context_color(how));
        x += 14;
        const QString name = in_context_name(how);
        p.drawText(QPointF(x, kMargin + 10), name);
        x += fm.horizontalAdvance(name) + 12;
    }
    p.setPen(QPen(fail_color(), 2));
    p.drawRect(QRectF(x, kMargin, 10, 10));
    p.setPen(palette().windowText().color());
    p.drawText(QPointF(x + 14, kMargin + 10),
               QString("hierarchical  ▨ temporal (last change)   layer %1, K = %2")
                   .arg(layer)
                   .arg(frame_->wlod_k));

    for (int level = 0; level < 3; ++level) {
        const QRectF band = nodeRect(level, 0, 0);
        p.setPen(palette().windowText().color());
        p.drawText(QRectF(kMargin, band.top(), kLabelWidth, band.height()), Qt::AlignVCenter,
                   QString("L%1").arg(level));
        for (const WlodNode& n : wf.levels[level]) {
            const QRectF r = nodeRect(n.level, n.first_leaf, n.end_leaf).adjusted(0.5, 0, -0.5, 0);
            const QColor fill = in_context_color(n.how);
            if (n.complete) {
                p.fillRect(r, fill);
            } else {
                p.setPen(QPen(fill.darker(130), 1, Qt::DashLine));
                p.drawRect(r);
            }
            const bool temporal = wf.last.temporal_from >= 0 && n.end_leaf > wf.last.temporal_from;
            if (temporal) p.fillRect(r, QBrush(QColor(200, 0, 0, 110), Qt::BDiagPattern));
            if (wf.last.hierarchical.count({level, n.index})) {
                p.setPen(QPen(fail_color(), 2));
                p.drawRect(r.adjusted(1, 1, -1, -1));
            }
            // Its rows meet the selected ones (a covered node has no rows of its own).
            const bool selected = selected_row_ >= 0 && selected_row_ < n.first_row + n.rows &&
                                  n.first_row < selected_row_ + selected_count_ &&
                                  n.how != InContext::Covered;
            if (selected) {
                p.setPen(QPen(palette().highlight().color(), 3));
                p.drawRect(r.adjusted(1.5, 1.5, -1.5, -1.5));
            }
            if (n.how == InContext::AsGist && r.width() > 18) {
                p.setPen(readable_text_color(fill));
                p.drawText(r, Qt::AlignCenter, QString::number(n.first_row));
            }
        }
    }
    if (wf.last.temporal_from >= 0 && leafCount() > 0) {
        const double x0 = nodeRect(0, wf.last.temporal_from, wf.last.temporal_from).left();
        p.setPen(QPen(fail_color(), 2));
        p.drawLine(QPointF(x0, kLegend + kMargin), QPointF(x0, height() - kMargin));
    }
}

ViewTable WlodTreeView::table() const {
    ViewTable t{
        {"layer", "level", "index", "first_leaf", "end_leaf", "complete", "in_context", "first_row",
         "rows", "gist_id", "t_center", "sigma", "dirty_hierarchical", "dirty_temporal"},
        {}};
    if (!frame_ || layer_ >= int(frame_->wlod.size())) return t;
    for (const std::vector<WlodNode>& level : frame_->wlod[size_t(layer_)].levels)
        for (const WlodNode& n : level)
            t.rows.append({layer_, n.level, qint64(n.index), qint64(n.first_leaf),
                           qint64(n.end_leaf), n.complete, QString(in_context_name(n.how)),
                           n.first_row, n.rows, qint64(n.gist_id), n.t_center, n.sigma,
                           n.dirty_hierarchical, n.dirty_temporal});
    return t;
}

}  // namespace kvw
