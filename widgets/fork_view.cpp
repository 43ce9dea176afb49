#include "widgets/fork_view.h"

#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "core/session/trace.h"
#include "widgets/read_only_table.h"
#include "widgets/row_text.h"
#include "widgets/view_colors.h"

namespace kvw {

namespace {

enum Column { RowColumn, SessionColumn, ForkColumn };

// The record a layer's row holds; nullopt past the layer's rows.
std::optional<int64_t> record_at(const Frame& frame, int layer, int row) {
    if (layer >= int(frame.layers.size())) return std::nullopt;
    const LayerFrame& lf = frame.layers[size_t(layer)];
    if (row >= lf.rows()) return std::nullopt;
    return lf.pos2ledger[size_t(row)];
}

const LedgerRecord* record_of(const Frame& frame, std::optional<int64_t> id) {
    if (!id || *id < 0 || *id >= int64_t(frame.ledger.size())) return nullptr;
    return &frame.ledger[size_t(*id)];
}

QString side_line(const char* side, const Frame& frame, int layer) {
    const int rows = layer < int(frame.layers.size()) ? frame.layers[size_t(layer)].rows() : 0;
    return QString("%1: tick %2 · %3 · %4 rows · hash %5")
        .arg(side)
        .arg(frame.tick)
        .arg(QString::fromStdString(frame.proposer))
        .arg(rows)
        .arg(QString::fromStdString(hash_hex(frame.state_hash)));
}

// Rows of `layer` in either frame.
int compared_rows(const Frame& a, const Frame& b, int layer) {
    int rows = 0;
    for (const Frame* f : {&a, &b})
        if (layer < int(f->layers.size())) rows = std::max(rows, f->layers[size_t(layer)].rows());
    return rows;
}

// Two rows are the same when they hold the same token (the ledger ids of two sessions agree
// only up to the fork).
bool same_row(const LedgerRecord* a, const LedgerRecord* b) {
    return a && b && a->token_id == b->token_id;
}

}  // namespace

ForkView::ForkView(QWidget* parent)
    : FrameView(parent), summary_(new QLabel(this)), rows_(new QTableWidget(this)) {
    summary_->setObjectName("forkSummary");
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    rows_->setObjectName("forkRows");
    setup_read_only_table(rows_, {"Row", "Session", "Fork"});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    layout->addWidget(rows_, 1);
    connect(rows_, &QTableWidget::cellClicked, this,
            [this](int row, int) { emit rowSelected(layer_, row); });
    refresh();
}

void ForkView::setFrame(FramePtr frame) {
    session_ = std::move(frame);
    refresh();
}

void ForkView::setForkFrame(FramePtr fork) {
    fork_ = std::move(fork);
    refresh();
}

void ForkView::setSelection(int layer, int /*row*/, int /*count*/) {
    if (layer < 0 || layer == layer_) return;
    layer_ = layer;
    refresh();
}

void ForkView::refresh() {
    const TableFill fill(rows_);
    if (!session_ || !fork_) {
        summary_->setText(
            "No fork yet: Edit ▸ Fork at tick… (or `fork TICK` in a script) makes "
            "one from this session's trace; it is compared here, row by row.");
        rows_->setRowCount(0);
        return;
    }
    const int rows = compared_rows(*session_, *fork_, layer_);
    int differ = 0, first = -1;
    rows_->setRowCount(rows);
    for (int r = 0; r < rows; ++r) {
        const LedgerRecord* a = record_of(*session_, record_at(*session_, layer_, r));
        const LedgerRecord* b = record_of(*fork_, record_at(*fork_, layer_, r));
        const bool same = same_row(a, b);
        if (!same && differ++ == 0) first = r;
        rows_->setItem(r, RowColumn, read_only_cell(QString::number(r)));
        int column = SessionColumn;
        for (const LedgerRecord* rec : {a, b}) {
            QTableWidgetItem* item =
                read_only_cell(rec ? visible_piece(rec->piece, rec->token_id) : QString("—"));
            if (!same) item->setBackground(QColor(0xf2, 0x8e, 0x2b));  // orange: they differ
            rows_->setItem(r, column++, item);
        }
    }
    QString text = side_line("Session", *session_, layer_) + "<br>" +
                   side_line("Fork", *fork_, layer_) + "<br>";
    text += differ == 0 ? QString("Layer %1: the same tokens in every row").arg(layer_)
                        : QString("Layer %1: %2 row(s) differ, the first at row %3")
                              .arg(layer_)
                              .arg(differ)
                              .arg(first);
    summary_->setText(text);
}

ViewTable ForkView::table() const {
    ViewTable t{{"row", "session_id", "session_piece", "fork_id", "fork_piece", "same"}, {}};
    if (!session_ || !fork_) return t;
    for (int r = 0; r < compared_rows(*session_, *fork_, layer_); ++r) {
        QVariantList row{r};
        const std::optional<int64_t> ids[] = {record_at(*session_, layer_, r),
                                              record_at(*fork_, layer_, r)};
        const LedgerRecord* recs[] = {record_of(*session_, ids[0]), record_of(*fork_, ids[1])};
        for (int side = 0; side < 2; ++side) {
            row << (ids[side] ? QVariant(qlonglong(*ids[side])) : QVariant(QString()));
            row << (recs[side] ? QString::fromStdString(recs[side]->piece) : QString());
        }
        row << same_row(recs[0], recs[1]);
        t.rows << row;
    }
    return t;
}

}  // namespace kvw
