#include "widgets/policy_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

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
    const std::vector<int64_t>& rows = frame.layers[size_t(layer)].pos2ledger.vec();
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

void PolicyView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    roles_.clear();
    for (int l = 0; l < int(frame_->layers.size()); ++l) roles_.push_back(policy_roles(*frame_, l));
    update();
}

void PolicyView::setSelection(int layer, int row, int count) {
    selected_ids_.clear();
    if (frame_ && layer >= 0 && layer < int(frame_->layers.size()) && row >= 0) {
        const std::vector<int64_t>& ids = frame_->layers[size_t(layer)].pos2ledger.vec();
        for (int r = row; r < std::min(row + std::max(count, 1), int(ids.size())); ++r)
            selected_ids_.push_back(ids[size_t(r)]);
    }
    update();
}

QRectF PolicyView::bandRect(int layer) const {
    const int layers = std::max<int>(1, int(roles_.size()));
    const double band = (height() - kLegend - 2 * kMargin) / layers;
    const double x0 = kMargin + kLabelWidth;
    return {x0, kLegend + kMargin + band * layer,
            std::max(1.0, width() - x0 - kMargin - kThresholdWidth), std::max(1.0, band - 2)};
}

double PolicyView::recordX(int64_t id) const {
    const QRectF band = bandRect(0);
    const double records = double(std::max<size_t>(1, frame_ ? frame_->ledger.size() : 1));
    return band.left() + band.width() * double(id) / records;
}

std::pair<int, int64_t> PolicyView::recordAt(QPointF p) const {
    if (!frame_ || frame_->ledger.empty()) return {-1, 0};
    for (int l = 0; l < int(roles_.size()); ++l) {
        const QRectF band = bandRect(l);
        if (!band.contains(p)) continue;
        const double records = double(frame_->ledger.size());
        const int64_t id = std::clamp<int64_t>(
            int64_t((p.x() - band.left()) / band.width() * records), 0, int64_t(records) - 1);
        return {l, id};
    }
    return {-1, 0};
}

QString PolicyView::describe(int layer, int64_t id) const {
    const LedgerRecord& r = frame_->ledger[size_t(id)];
    const PolicyRole role = roles_[size_t(layer)][size_t(id)];
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
    p.drawText(
        QPointF(x + 8, kMargin + 10),
        frame_->selection.empty()
            ? QString("%1: no per-layer bookkeeping").arg(QString::fromStdString(frame_->proposer))
            : QString("%1: S %2 + B %3 + W %4")
                  .arg(QString::fromStdString(frame_->proposer))
                  .arg(b.sink)
                  .arg(b.budget)
                  .arg(b.window));

    // Bands: each pixel column shows the highest-ranked role among the records it covers, so
    // a sink or a high-value row stays visible among thousands of evicted ones.
    const size_t records = frame_->ledger.size();
    for (int l = 0; l < int(roles_.size()); ++l) {
        const QRectF band = bandRect(l);
        p.setPen(palette().windowText().color());
        p.drawText(QRectF(kMargin, band.top(), kLabelWidth, band.height()), Qt::AlignVCenter,
                   QString("L%1").arg(l));
        const std::vector<PolicyRole>& roles = roles_[size_t(l)];
        const int columns = std::max(1, int(band.width()));
        for (int c = 0; c < columns; ++c) {
            const size_t first = size_t(double(c) / columns * double(records));
            const size_t end =
                std::max(first + 1, size_t(double(c + 1) / columns * double(records)));
            PolicyRole top = PolicyRole::None;
            for (size_t id = first; id < std::min(end, records); ++id)
                top = std::max(top, roles[id]);
            p.fillRect(QRectF(band.left() + c, band.top(), 1.0, band.height()), roleColor(top));
        }
        const std::optional<float> threshold = eviction_threshold(*frame_, l);
        p.drawText(QRectF(band.right() + 4, band.top(), kThresholdWidth - 4, band.height()),
                   Qt::AlignVCenter | Qt::AlignLeft,
                   threshold ? QString("≥ %1").arg(double(*threshold), 0, 'g', 4) : QString("—"));
    }

    p.setPen(QPen(QColor(0x17, 0xbe, 0xcf), 2));
    for (int64_t id : selected_ids_) {
        if (id < 0 || size_t(id) >= records) continue;
        const double sx = recordX(id) + 0.5;
        p.drawLine(QPointF(sx, bandRect(0).top()),
                   QPointF(sx, bandRect(int(roles_.size()) - 1).bottom()));
    }
}

void PolicyView::mousePressEvent(QMouseEvent* event) {
    const auto [layer, id] = recordAt(event->position());
    if (layer < 0) return;
    const int row = row_of(*frame_, layer, id);
    if (row < 0) return;
    emit layerSelected(layer);
    emit rowSelected(layer, row);
}

bool PolicyView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [layer, id] = recordAt(help->pos());
        if (layer >= 0)
            QToolTip::showText(help->globalPos(), describe(layer, id), this);
        else
            QToolTip::hideText();
        return true;
    }
    return FrameView::event(event);
}

ViewTable PolicyView::table() const {
    ViewTable t{
        {"layer", "ledger_id", "role", "row", "score", "left_at_tick", "reason", "layer_threshold"},
        {}};
    if (!frame_) return t;
    for (int l = 0; l < int(roles_.size()); ++l) {
        const std::optional<float> threshold = eviction_threshold(*frame_, l);
        for (size_t id = 0; id < roles_[size_t(l)].size(); ++id) {
            const PolicyRole role = roles_[size_t(l)][id];
            if (role == PolicyRole::None) continue;
            const Removal& gone = frame_->ledger[id].removal[size_t(l)];
            const bool left = role == PolicyRole::Evicted;
            std::optional<float> score =
                left ? gone.cause.score : high_value_score(*frame_, l, int64_t(id));
            const int row = row_of(*frame_, l, int64_t(id));
            t.rows.append(
                {l, qint64(id), QString(policy_role_name(role)),
                 row >= 0 ? QVariant(row) : QVariant(), score ? QVariant(*score) : QVariant(),
                 left ? QVariant(qint64(gone.tick)) : QVariant(),
                 left ? QVariant(QString(removal_reason_name(gone.cause.reason))) : QVariant(),
                 threshold ? QVariant(*threshold) : QVariant()});
        }
    }
    return t;
}

}  // namespace kvw
