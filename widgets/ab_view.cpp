#include "widgets/ab_view.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "widgets/row_text.h"

namespace kvw {

namespace {

constexpr double kMargin = 6.0;
constexpr double kLegend = 18.0;        // the legend line at the top
constexpr double kSummary = 16.0;       // the perplexity line under it
constexpr double kLabelWidth = 28.0;    // "L0" .. on the left
constexpr double kOverlapWidth = 64.0;  // "J 0.625" on the right

constexpr AbKept kLegendKinds[] = {AbKept::Both, AbKept::AOnly, AbKept::BOnly, AbKept::Neither};

// Which of several records one pixel shows: a difference before agreement, anything before
// neither.
int rank(AbKept kept) {
    switch (kept) {
        case AbKept::Neither: return 0;
        case AbKept::Both: return 1;
        case AbKept::AOnly: return 2;
        case AbKept::BOnly: return 3;
    }
    return 0;
}

QString side_text(const char* label, const AbPolicy& side, const PerplexityResult& nll) {
    const PolicyBudget& b = side.options.budget;
    QString text = QString("%1 %2 (S %3 + B %4 + W %5)")
                       .arg(label, QString::fromStdString(side.name))
                       .arg(b.sink)
                       .arg(b.budget)
                       .arg(b.window);
    if (nll.scored > 0)
        text += QString(": ppl %1, NLL %2")
                    .arg(nll.perplexity(), 0, 'f', 3)
                    .arg(nll.mean_nll(), 0, 'f', 4);
    return text;
}

}  // namespace

QColor AbView::keptColor(AbKept kept) {
    switch (kept) {
        case AbKept::Neither: return QColor(0xdc, 0xd7, 0xd2);  // pale grey: dropped by both
        case AbKept::Both: return QColor(0x59, 0xa1, 0x4f);     // green
        case AbKept::AOnly: return QColor(0x4e, 0x79, 0xa7);    // blue
        case AbKept::BOnly: return QColor(0xf2, 0x8e, 0x2b);    // orange
    }
    return Qt::black;
}

AbView::AbView(QWidget* parent) : FrameView(parent) {
    setMinimumHeight(60);
    setAutoFillBackground(true);
    setMouseTracking(true);
}

void AbView::setFrame(FramePtr frame) {
    ab_ = frame ? frame->ab : nullptr;
    update();
}

QRectF AbView::bandRect(int layer) const {
    const int layers = std::max<int>(1, ab_ ? int(ab_->kept.size()) : 1);
    const double top = kLegend + kSummary + kMargin;
    const double band = (height() - top - kMargin) / layers;
    const double x0 = kMargin + kLabelWidth;
    return {x0, top + band * layer, std::max(1.0, width() - x0 - kMargin - kOverlapWidth),
            std::max(1.0, band - 2)};
}

double AbView::recordX(int64_t id) const {
    const QRectF band = bandRect(0);
    const double records = double(std::max<size_t>(1, ab_ ? ab_->tokens.size() : 1));
    return band.left() + band.width() * double(id) / records;
}

std::pair<int, int64_t> AbView::recordAt(QPointF p) const {
    if (!ab_ || ab_->tokens.empty()) return {-1, 0};
    for (int l = 0; l < int(ab_->kept.size()); ++l) {
        const QRectF band = bandRect(l);
        if (!band.contains(p)) continue;
        const double records = double(ab_->tokens.size());
        const int64_t id = std::clamp<int64_t>(
            int64_t((p.x() - band.left()) / band.width() * records), 0, int64_t(records) - 1);
        return {l, id};
    }
    return {-1, 0};
}

void AbView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!ab_) {
        p.drawText(rect().adjusted(int(kMargin), int(kMargin), 0, 0), Qt::AlignLeft | Qt::AlignTop,
                   "A/B off (Session ▸ A/B against, or `ab POLICY S B W` in a script)");
        return;
    }
    const QFontMetrics fm(font());
    double x = kMargin;
    for (AbKept kind : kLegendKinds) {
        p.fillRect(QRectF(x, kMargin + 1, 10, 10), keptColor(kind));
        const QString name = ab_kept_name(kind);
        p.drawText(QPointF(x + 14, kMargin + 10), name);
        x += 14 + fm.horizontalAdvance(name) + 12;
    }
    p.drawText(
        QPointF(x + 8, kMargin + 10),
        QString("%1 tokens after a prompt of %2").arg(ab_->nll_a.scored).arg(ab_->prompt_tokens));
    p.drawText(QPointF(kMargin, kMargin + kLegend + 8), summaryText());

    const size_t records = ab_->tokens.size();
    for (int l = 0; l < int(ab_->kept.size()); ++l) {
        const QRectF band = bandRect(l);
        p.setPen(palette().windowText().color());
        p.drawText(QRectF(kMargin, band.top(), kLabelWidth, band.height()), Qt::AlignVCenter,
                   QString("L%1").arg(l));
        const std::vector<AbKept>& kept = ab_->kept[size_t(l)];
        const int columns = std::max(1, int(band.width()));
        for (int c = 0; c < columns && records > 0; ++c) {
            const size_t first = size_t(double(c) / columns * double(records));
            const size_t end =
                std::max(first + 1, size_t(double(c + 1) / columns * double(records)));
            AbKept top = kept[std::min(first, records - 1)];
            for (size_t id = first; id < std::min(end, records); ++id)
                if (rank(kept[id]) > rank(top)) top = kept[id];
            p.fillRect(QRectF(band.left() + c, band.top(), 1.0, band.height()), keptColor(top));
        }
        p.drawText(QRectF(band.right() + 4, band.top(), kOverlapWidth - 4, band.height()),
                   Qt::AlignVCenter | Qt::AlignLeft,
                   QString("J %1").arg(ab_->counts[size_t(l)].jaccard(), 0, 'f', 3));
    }
}

QString AbView::summaryText() const {
    if (!ab_) return {};
    return side_text("A", ab_->a, ab_->nll_a) + "   " + side_text("B", ab_->b, ab_->nll_b) +
           "   RoPE " + rope_policy_name(ab_->rope);
}

bool AbView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [layer, id] = recordAt(help->pos());
        if (layer >= 0)
            QToolTip::showText(
                help->globalPos(),
                QString("layer %1, #%2 %3: %4")
                    .arg(layer)
                    .arg(id)
                    .arg(visible_piece(ab_->pieces[size_t(id)], ab_->tokens[size_t(id)]),
                         ab_kept_name(ab_->kept[size_t(layer)][size_t(id)])),
                this);
        else
            QToolTip::hideText();
        return true;
    }
    return FrameView::event(event);
}

ViewTable AbView::table() const {
    ViewTable t{{"layer", "ledger_id", "token_id", "kept", "a_policy", "b_policy", "a_mean_nll",
                 "b_mean_nll", "scored_tokens", "rope"},
                {}};
    if (!ab_) return t;
    const QString a = QString::fromStdString(ab_->a.name), b = QString::fromStdString(ab_->b.name);
    for (int l = 0; l < int(ab_->kept.size()); ++l)
        for (size_t id = 0; id < ab_->kept[size_t(l)].size(); ++id)
            t.rows.append({l, qint64(id), ab_->tokens[id],
                           QString(ab_kept_name(ab_->kept[size_t(l)][id])), a, b,
                           ab_->nll_a.mean_nll(), ab_->nll_b.mean_nll(), qint64(ab_->nll_a.scored),
                           QString(rope_policy_name(ab_->rope))});
    return t;
}

}  // namespace kvw
