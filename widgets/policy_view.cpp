#include "widgets/policy_view.h"

#include <QApplication>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "widgets/point_tool_tip.h"
#include "widgets/row_text.h"

namespace kvw {

namespace {

constexpr double kMargin = 6.0;
constexpr double kLegend = 18.0;          // the legend line at the top
constexpr double kLabelWidth = 28.0;      // "L0" .. on the left
constexpr double kThresholdWidth = 76.0;  // "≥ 0.8312" on the right

constexpr PolicyRole kLegendRoles[] = {PolicyRole::Sink, PolicyRole::HighValue, PolicyRole::Window,
                                       PolicyRole::Kept, PolicyRole::Evicted};

// The live row holding `id` in the frame's layer; -1: none.
int row_of(const Frame& frame, int layer, int64_t id) {
    const SharedRows<int64_t>& rows = frame.layers[size_t(layer)].pos2ledger;
    const auto it = std::find(rows.begin(), rows.end(), id);
    return it == rows.end() ? -1 : int(it - rows.begin());
}

std::optional<float> high_value_score(const Frame& frame, int layer, int64_t id) {
    if (size_t(layer) >= frame.selection.size()) return std::nullopt;
    for (const auto& [score, held] : frame.selection[size_t(layer)].high_value)
        if (held == id) return score;
    return std::nullopt;
}

}  // namespace

QColor PolicyView::roleColor(PolicyRole role) {
    switch (role) {
        case PolicyRole::None: return QColor(0xf4, 0xf4, 0xf4);
        case PolicyRole::Evicted: return QColor(0xba, 0xb0, 0xac);    // grey: gone
        case PolicyRole::Kept: return QColor(0xa0, 0xcb, 0xe8);       // pale blue
        case PolicyRole::Window: return QColor(0x59, 0xa1, 0x4f);     // green
        case PolicyRole::HighValue: return QColor(0xf2, 0x8e, 0x2b);  // orange
        case PolicyRole::Sink: return QColor(0x4e, 0x79, 0xa7);       // blue
    }
    return Qt::black;
}

PolicyView::PolicyView(QWidget* parent) : FrameView(parent) {
    setMinimumHeight(60);
    setAutoFillBackground(true);
    setMouseTracking(true);
}

int PolicyView::layerCount() const { return frame_ ? int(frame_->layers.size()) : 0; }

int PolicyView::recordCount() const { return frame_ ? int(frame_->ledger.size()) : 0; }

void PolicyView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    if (zoomed_)
        setVisibleRecords(window_.first, window_.last);  // the ledger may have grown
    else
        fitRecords();
}

void PolicyView::setVisibleRecords(int first, int last) {
    const int records = recordCount();
    const int width = std::min(records, std::max(last - first, kMinRecords));
    first = std::clamp(first, 0, records - width);
    window_ = {first, first + width};
    zoomed_ = width < records;
    refill();
}

void PolicyView::zoomBy(double factor, double centre) {
    const double width = double(window_.last - window_.first) / factor;
    const double first = centre - (centre - window_.first) / factor;
    setVisibleRecords(int(std::lround(first)), int(std::lround(first + width)));
}

void PolicyView::fitRecords() { setVisibleRecords(0, recordCount()); }

void PolicyView::refill() {
    cells_.clear();
    if (frame_ && layerCount() > 0) {
        const int columns = std::max(1, int(bandRect(0).width()));
        for (const std::vector<PolicyRole>& roles : policy_roles(*frame_, window_))
            cells_.push_back(pool_policy_roles(roles, columns));
    }
    update();
}

void PolicyView::resizeEvent(QResizeEvent* event) {
    FrameView::resizeEvent(event);
    refill();
}

void PolicyView::setSelection(int layer, int row, int count) {
    selected_ids_.clear();
    if (frame_ && layer >= 0 && layer < layerCount() && row >= 0) {
        const SharedRows<int64_t>& ids = frame_->layers[size_t(layer)].pos2ledger;
        for (int r = row; r < std::min(row + std::max(count, 1), int(ids.size())); ++r)
            selected_ids_.push_back(ids[size_t(r)]);
    }
    if (zoomed_ && !selected_ids_.empty()) {
        const int id = int(selected_ids_.front());
        if (id < window_.first || id >= window_.last) {
            const int width = window_.last - window_.first;
            setVisibleRecords(id - width / 2, id - width / 2 + width);
        }
    }
    update();
}

QRectF PolicyView::bandRect(int layer) const {
    const int layers = std::max(1, layerCount());
    const double band = (height() - kLegend - 2 * kMargin) / layers;
    const double x0 = kMargin + kLabelWidth;
    return {x0, kLegend + kMargin + band * layer,
            std::max(1.0, width() - x0 - kMargin - kThresholdWidth), std::max(1.0, band - 2)};
}

double PolicyView::recordX(int64_t id) const {
    const QRectF band = bandRect(0);
    const double records = double(std::max(1, window_.last - window_.first));
    return band.left() + band.width() * double(id - window_.first) / records;
}

std::pair<int, int64_t> PolicyView::recordAt(QPointF p) const {
    if (window_.last <= window_.first) return {-1, 0};
    for (int l = 0; l < layerCount(); ++l) {
        const QRectF band = bandRect(l);
        if (!band.contains(p)) continue;
        const double records = double(window_.last - window_.first);
        const int64_t id = std::clamp<int64_t>(
            window_.first + int64_t((p.x() - band.left()) / band.width() * records), window_.first,
            window_.last - 1);
        return {l, id};
    }
    return {-1, 0};
}

QString PolicyView::describe(int layer, int64_t id) const {
    const LedgerRecord& r = frame_->ledger[size_t(id)];
    const PolicyRole role = policy_roles(*frame_, {int(id), int(id) + 1})[size_t(layer)][0];
    QString text = QString("layer %1, #%2 %3: %4")
                       .arg(layer)
                       .arg(id)
                       .arg(visible_piece(r.piece, r.token_id), policy_role_name(role));
    if (const int row = row_of(*frame_, layer, id); row >= 0) text += QString(", row %1").arg(row);
    if (const auto score = high_value_score(*frame_, layer, id))
        text += QString(", score %1").arg(double(*score), 0, 'g', 4);
    if (role == PolicyRole::Evicted) {
        const Removal& gone = r.removal[size_t(layer)];
        text +=
            QString(" at tick %1 (%2").arg(gone.tick).arg(removal_reason_name(gone.cause.reason));
        if (gone.cause.score)
            text += QString(", score %1").arg(double(*gone.cause.score), 0, 'g', 4);
        text += ")";
    }
    return text;
}

void PolicyView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!frame_ || frame_->ledger.empty()) return;

    // Legend: the roles and what the policy is.
    const QFontMetrics fm(font());
    double x = kMargin;
    for (PolicyRole role : kLegendRoles) {
        p.fillRect(QRectF(x, kMargin + 1, 10, 10), roleColor(role));
        const QString name = policy_role_name(role);
        p.drawText(QPointF(x + 14, kMargin + 10), name);
        x += 14 + fm.horizontalAdvance(name) + 12;
    }
    const PolicyBudget& b = frame_->policy.budget;
    QString policy =
        frame_->selection.empty()
            ? QString("%1: no per-layer bookkeeping").arg(QString::fromStdString(frame_->proposer))
            : QString("%1: S %2 + B %3 + W %4")
                  .arg(QString::fromStdString(frame_->proposer))
                  .arg(b.sink)
                  .arg(b.budget)
                  .arg(b.window);
    if (zoomed_)
        policy += QString("   records %1–%2 of %3 (double-click: all)")
                      .arg(window_.first)
                      .arg(window_.last - 1)
                      .arg(recordCount());
    p.drawText(QPointF(x + 8, kMargin + 10), policy);

    // Bands: the pooled cells, a run of equal cells drawn as one rectangle.
    for (int l = 0; l < int(cells_.size()); ++l) {
        const QRectF band = bandRect(l);
        p.setPen(palette().windowText().color());
        p.drawText(QRectF(kMargin, band.top(), kLabelWidth, band.height()), Qt::AlignVCenter,
                   QString("L%1").arg(l));
        const std::vector<PolicyRole>& cells = cells_[size_t(l)];
        const double cell_width = band.width() / double(std::max<size_t>(1, cells.size()));
        for (size_t c = 0; c < cells.size();) {
            size_t end = c + 1;
            while (end < cells.size() && cells[end] == cells[c]) ++end;
            p.fillRect(QRectF(band.left() + cell_width * double(c), band.top(),
                              cell_width * double(end - c), band.height()),
                       roleColor(cells[c]));
            c = end;
        }
        const std::optional<float> threshold = eviction_threshold(*frame_, l);
        p.drawText(QRectF(band.right() + 4, band.top(), kThresholdWidth - 4, band.height()),
                   Qt::AlignVCenter | Qt::AlignLeft,
                   threshold ? QString("≥ %1").arg(double(*threshold), 0, 'g', 4) : QString("—"));
    }

    p.setPen(QPen(QColor(0x17, 0xbe, 0xcf), 2));
    for (int64_t id : selected_ids_) {
        if (id < window_.first || id >= window_.last) continue;
        const double sx = recordX(id) + 0.5;
        p.drawLine(QPointF(sx, bandRect(0).top()),
                   QPointF(sx, bandRect(layerCount() - 1).bottom()));
    }
}

void PolicyView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    press_ = event->position();
    press_window_ = window_;
    dragged_ = false;
}

void PolicyView::mouseMoveEvent(QMouseEvent* event) {
    if (!press_ || !(event->buttons() & Qt::LeftButton)) return;
    const double dx = event->position().x() - press_->x();
    if (!dragged_ && std::abs(dx) < QApplication::startDragDistance()) return;
    dragged_ = true;
    const double per_pixel = double(press_window_.last - press_window_.first) / bandRect(0).width();
    const int shift = int(std::lround(-dx * per_pixel));
    setVisibleRecords(press_window_.first + shift, press_window_.last + shift);
}

void PolicyView::mouseReleaseEvent(QMouseEvent* event) {
    const bool click = press_ && !dragged_ && event->button() == Qt::LeftButton;
    press_.reset();
    if (!click) return;
    const auto [layer, id] = recordAt(event->position());
    if (layer < 0) return;
    const int row = row_of(*frame_, layer, id);
    if (row < 0) return;
    emit layerSelected(layer);
    emit rowSelected(layer, row);
}

void PolicyView::mouseDoubleClickEvent(QMouseEvent*) { fitRecords(); }

void PolicyView::wheelEvent(QWheelEvent* event) {
    const QRectF band = bandRect(0);
    if (window_.last <= window_.first || event->angleDelta().y() == 0) return;
    const double at = std::clamp((event->position().x() - band.left()) / band.width(), 0.0, 1.0);
    const double centre = window_.first + at * double(window_.last - window_.first);
    zoomBy(std::pow(2.0, event->angleDelta().y() / 120.0), centre);
}

bool PolicyView::event(QEvent* event) {
    const auto text_at = [this](QPoint at) {
        const auto [layer, id] = recordAt(at);
        return layer >= 0 ? describe(layer, id) : QString();
    };
    if (show_point_tool_tip(this, event, text_at)) return true;
    return FrameView::event(event);
}

ViewTable PolicyView::table() const {
    ViewTable t{
        {"layer", "ledger_id", "role", "row", "score", "left_at_tick", "reason", "layer_threshold"},
        {}};
    if (!frame_) return t;
    const PolicyRoles roles = policy_roles(*frame_);  // every record, whatever the window
    for (int l = 0; l < int(roles.size()); ++l) {
        const std::optional<float> threshold = eviction_threshold(*frame_, l);
        std::vector<int> row_of_id(roles[size_t(l)].size(), -1);
        const SharedRows<int64_t>& ids = frame_->layers[size_t(l)].pos2ledger;
        for (size_t r = 0; r < ids.size(); ++r)
            if (ids[r] >= 0 && size_t(ids[r]) < row_of_id.size() && row_of_id[size_t(ids[r])] < 0)
                row_of_id[size_t(ids[r])] = int(r);  // the first row, as row_of() finds it
        std::unordered_map<int64_t, float> high_value;
        if (size_t(l) < frame_->selection.size())
            for (const auto& [score, id] : frame_->selection[size_t(l)].high_value)
                high_value.emplace(id, score);
        for (size_t id = 0; id < roles[size_t(l)].size(); ++id) {
            const PolicyRole role = roles[size_t(l)][id];
            if (role == PolicyRole::None) continue;
            const Removal& gone = frame_->ledger[id].removal[size_t(l)];
            const bool left = role == PolicyRole::Evicted;
            QVariant score;  // the score it had when it left, or its high-value score while held
            if (left) {
                if (gone.cause.score) score = *gone.cause.score;
            } else if (const auto high = high_value.find(int64_t(id)); high != high_value.end()) {
                score = high->second;
            }
            const int row = row_of_id[id];
            t.rows.append(
                {l, qint64(id), QString(policy_role_name(role)),
                 row >= 0 ? QVariant(row) : QVariant(), score,
                 left ? QVariant(qint64(gone.tick)) : QVariant(),
                 left ? QVariant(QString(removal_reason_name(gone.cause.reason))) : QVariant(),
                 threshold ? QVariant(*threshold) : QVariant()});
        }
    }
    return t;
}

}  // namespace kvw
