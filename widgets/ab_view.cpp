#include "widgets/ab_view.h"

#include <QPainter>
#include <algorithm>

#include "widgets/point_tool_tip.h"
#include "widgets/row_text.h"

namespace kvw {

namespace {

constexpr double kMargin = 6.0;
constexpr double kLabelWidth = 28.0;    // "L0" .. on the left
constexpr double kOverlapWidth = 64.0;  // "J 0.625" on the right
constexpr double kMinBand = 10.0;       // a band's least height: below it the dock scrolls

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

QString kept_explanation(AbKept kept) {
    switch (kept) {
        case AbKept::Neither: return "Dropped in this layer by both policies";
        case AbKept::Both: return "Kept in this layer by both A and B";
        case AbKept::AOnly: return "Kept in this layer by A (the session's policy) only";
        case AbKept::BOnly: return "Kept in this layer by B (the policy compared) only";
    }
    return {};
}

// "A = h2o (S 2 + B 3 + W 3) · ppl 5.627: the session's policy, replayed from the prompt": the
// figures first, so that a narrow view wraps the words, not them.
QString side_text(const char* label, const AbPolicy& side, const QString& role,
                  const PerplexityResult& nll) {
    const PolicyBudget& b = side.options.budget;
    QString text = QString("%1 = %2 (S %3 + B %4 + W %5)")
                       .arg(label, QString::fromStdString(side.name))
                       .arg(b.sink)
                       .arg(b.budget)
                       .arg(b.window);
    if (nll.scored > 0) text += QString(" · ppl %1").arg(nll.perplexity(), 0, 'f', 3);
    return text + ": " + role;
}

constexpr int kWrap = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;

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
    setAutoFillBackground(true);
    setMouseTracking(true);
    std::vector<LegendEntry> entries;
    for (AbKept kind : kLegendKinds)
        entries.push_back(
            {ab_kept_name(kind), kept_explanation(kind),
             [color = keptColor(kind)](QPainter& p, const QRectF& r) { p.fillRect(r, color); }});
    entries.push_back({"J = Jaccard overlap of kept rows",
                       "At each band's end: J = both / (both + A only + B only), the share of the "
                       "rows either side keeps in that layer that both keep (1: the same rows)",
                       nullptr});
    legend_ = ViewLegend(std::move(entries));
    relayout();
}

void AbView::setFrame(FramePtr frame) {
    ab_ = frame ? frame->ab : nullptr;
    relayout();
    update();
}

void AbView::resizeEvent(QResizeEvent* event) {
    relayout();
    FrameView::resizeEvent(event);
}

QStringList AbView::headerLines() const {
    if (!ab_) return {};
    return {side_text("A", ab_->a, "the session's policy, replayed from the prompt", ab_->nll_a),
            side_text("B", ab_->b,
                      QString("the chosen policy, on the same %1 tokens").arg(ab_->nll_b.scored),
                      ab_->nll_b),
            QString("both priced under RoPE ") + rope_policy_name(ab_->rope)};
}

void AbView::relayout() {
    const double width = std::max(1.0, this->width() - 2 * kMargin);
    const double legend = legend_.layout(QPointF(kMargin, kMargin), width, fontMetrics());
    double height = 0;
    for (const QString& line : headerLines())
        height += fontMetrics().boundingRect(QRect(0, 0, int(width), 10000), kWrap, line).height();
    header_rect_ = QRectF(kMargin, kMargin + legend + 2, width, height);
    const int layers = ab_ ? std::max<int>(1, int(ab_->kept.size())) : 1;
    setMinimumHeight(int(header_rect_.bottom() + kMargin + layers * kMinBand + kMargin));
}

QRectF AbView::bandRect(int layer) const {
    const int layers = std::max<int>(1, ab_ ? int(ab_->kept.size()) : 1);
    const double top = header_rect_.bottom() + kMargin;
    const double band = (height() - top - kMargin) / layers;
    const double x0 = kMargin + kLabelWidth;
    return {x0, top + band * layer, std::max(1.0, width() - x0 - kMargin - kOverlapWidth),
            std::max(1.0, band - 2)};
}

QRectF AbView::overlapRect(int layer) const {
    const QRectF band = bandRect(layer);
    return {band.right() + 4, band.top(), kOverlapWidth - 4, band.height()};
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
    p.setPen(palette().windowText().color());
    if (!ab_) {
        p.drawText(rect().adjusted(int(kMargin), int(kMargin), 0, 0), Qt::AlignLeft | Qt::AlignTop,
                   "A/B off (Session ▸ A/B against, or `ab POLICY S B W` in a script)");
        return;
    }
    legend_.paint(p);
    double y = header_rect_.top();
    for (const QString& line : headerLines()) {
        const QRectF at(header_rect_.left(), y, header_rect_.width(), 10000);
        const QRectF used = p.boundingRect(at, kWrap, line);
        p.drawText(at, kWrap, line);
        y += used.height();
    }

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
        p.drawText(overlapRect(l), Qt::AlignVCenter | Qt::AlignLeft,
                   QString("J %1").arg(ab_->counts[size_t(l)].jaccard(), 0, 'f', 3));
    }
}

QString AbView::toolTipAt(QPointF point) const {
    if (!ab_) return {};
    if (QString legend = legend_.toolTipAt(point); !legend.isEmpty()) return legend;
    if (header_rect_.contains(point))
        return QString(
                   "Perplexity and mean NLL of the %1 tokens after the prompt (%2 tokens, "
                   "BOS included), each under its own side's cache:\nA: ppl %3, NLL %4\n"
                   "B: ppl %5, NLL %6")
            .arg(ab_->nll_a.scored)
            .arg(ab_->prompt_tokens)
            .arg(ab_->nll_a.perplexity(), 0, 'f', 3)
            .arg(ab_->nll_a.mean_nll(), 0, 'f', 4)
            .arg(ab_->nll_b.perplexity(), 0, 'f', 3)
            .arg(ab_->nll_b.mean_nll(), 0, 'f', 4);
    if (const auto [layer, id] = recordAt(point); layer >= 0)
        return QString("layer %1, #%2 %3: %4")
            .arg(layer)
            .arg(id)
            .arg(visible_piece(ab_->pieces[size_t(id)], ab_->tokens[size_t(id)]),
                 ab_kept_name(ab_->kept[size_t(layer)][size_t(id)]));
    for (int l = 0; l < int(ab_->counts.size()); ++l)
        if (overlapRect(l).contains(point)) {
            const AbCounts& c = ab_->counts[size_t(l)];
            return QString(
                       "layer %1: J = both / (both + A only + B only) = %2 / (%2 + %3 + %4) "
                       "= %5 (Jaccard overlap of the rows A and B keep)")
                .arg(l)
                .arg(c.both)
                .arg(c.a_only())
                .arg(c.b_only())
                .arg(c.jaccard(), 0, 'f', 3);
        }
    return {};
}

bool AbView::event(QEvent* event) {
    if (show_point_tool_tip(this, event, [this](QPoint at) { return toolTipAt(at); })) return true;
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
