#include "widgets/record_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/read_only_table.h"
#include "widgets/record_story.h"
#include "widgets/row_text.h"
#include "widgets/view_colors.h"

namespace kvw {

QString record_header_text(const Frame& frame, int64_t id) {
    if (id < 0 || id >= int64_t(frame.ledger.size()))
        return QString("No record #%1 (the ledger has %2)").arg(id).arg(frame.ledger.size());
    const LedgerRecord& r = frame.ledger[size_t(id)];
    const std::vector<RecordInLayer> story = record_story(frame, id);
    const auto live = std::count_if(story.begin(), story.end(), [](const RecordInLayer& p) {
        return p.status == RowStatus::Live;
    });
    QString text = QString("#%1 %2 (%3, token %4, born tick %5): live in %6 of %7 layers")
                       .arg(id)
                       .arg(visible_piece(r.piece, r.token_id), entry_kind_name(r.kind))
                       .arg(r.token_id)
                       .arg(r.born_tick)
                       .arg(live)
                       .arg(story.size());
    if (r.died_tick >= 0) text += QString(", gone from all since tick %1").arg(r.died_tick);
    return text;
}

QString record_ticks_html(const Frame& frame, int64_t id) {
    QStringList parts;
    for (const RecordTick& t : record_ticks(frame, id)) {
        QString part = QString("<a href=\"%1\">tick %1</a> %2")
                           .arg(t.tick)
                           .arg(QString::fromStdString(t.what).toHtmlEscaped());
        if (!t.layers.empty())
            part += QString(" (%1)").arg(QString::fromStdString(layer_runs_text(t.layers)));
        parts << part;
    }
    return parts.isEmpty() ? QString() : "Ticks: " + parts.join(" · ");
}

RecordView::RecordView(QWidget* parent)
    : FrameView(parent),
      record_(new QSpinBox(this)),
      header_(new QLabel(this)),
      ticks_(new QLabel(this)),
      table_(new QTableWidget(this)) {
    record_->setObjectName("record");
    record_->setPrefix("#");
    record_->setRange(0, 0);
    record_->setToolTip("Ledger id of the record to follow (a removed one too)");
    header_->setObjectName("header");
    header_->setWordWrap(true);
    ticks_->setObjectName("ticks");
    ticks_->setWordWrap(true);
    ticks_->setToolTip("Where the record was born and left layers; click a tick to show it");
    table_->setObjectName("layers");
    setup_read_only_table(table_, {"Layer", "Status", "Row", "Brightness", "RoPE", "Drift",
                                   "Left at", "Why", "Score"});

    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel("Record", this));
    pick->addWidget(record_);
    pick->addWidget(header_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pick);
    layout->addWidget(ticks_);
    layout->addWidget(table_, 1);

    connect(record_, &QSpinBox::valueChanged, this, [this] { showRecord(); });
    connect(ticks_, &QLabel::linkActivated, this,
            [this](const QString& tick) { emit tickChosen(tick.toLongLong()); });
    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) { selectLayer(row); });
}

int64_t RecordView::recordId() const { return record_->value(); }

void RecordView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    const QSignalBlocker block(record_);
    record_->setRange(0, std::max(0, int(frame_->ledger.size()) - 1));
    showRecord();
}

// One record at a time: a span shows its first row's.
void RecordView::setSelection(int layer, int row, int /*count*/) {
    if (!frame_ || layer < 0 || layer >= int(frame_->layers.size())) return;
    const LayerFrame& lf = frame_->layers[size_t(layer)];
    if (row < 0 || row >= lf.rows()) return;
    const int64_t id = lf.pos2ledger[size_t(row)];
    if (id == record_->value()) return;
    // A set value emits valueChanged, which redraws.
    record_->setValue(int(id));
}

void RecordView::showRecord() {
    if (!frame_) return;
    const int64_t id = record_->value();
    header_->setText(record_header_text(*frame_, id));
    ticks_->setText(record_ticks_html(*frame_, id));
    const std::vector<RecordInLayer> story = record_story(*frame_, id);
    const TableFill fill(table_);
    table_->setRowCount(int(story.size()));
    for (const RecordInLayer& p : story) {
        const bool live = p.row >= 0;
        const bool left = p.removal.tick >= 0;
        const QString cells[] = {
            QString::number(p.layer),
            row_status_text(p.status),
            live ? QString::number(p.row) : QString("—"),
            live ? QString::number(double(p.brightness), 'f', 1) : QString("—"),
            live ? QString::number(p.rope_pos) : QString("—"),
            p.drift ? QString::number(double(*p.drift), 'g', 3) : QString("—"),
            left ? QString::number(p.removal.tick) : QString("—"),
            left ? QString(removal_reason_name(p.removal.cause.reason)) : QString("—"),
            left && p.removal.cause.score ? QString::number(double(*p.removal.cause.score), 'g', 4)
                                          : QString("—"),
        };
        for (int c = 0; c < int(std::size(cells)); ++c) {
            QTableWidgetItem* item = read_only_cell(cells[c]);
            if (!p.agrees) {
                item->setBackground(fail_color());
                item->setToolTip(live ? "a cache row holds the record but the ledger says " +
                                            QString(row_status_text(p.status))
                                      : "the ledger says live but no cache row holds the record");
            } else if (c == Status && p.status == RowStatus::Live) {
                item->setBackground(pass_color());
            }
            table_->setItem(p.layer, c, item);
        }
    }
}

void RecordView::selectLayer(int table_row) {
    if (!frame_) return;
    const std::vector<RecordInLayer> story = record_story(*frame_, record_->value());
    if (table_row < 0 || table_row >= int(story.size()) || story[size_t(table_row)].row < 0) return;
    emit layerSelected(table_row);
    emit rowSelected(table_row, story[size_t(table_row)].row);
}

ViewTable RecordView::table() const {
    ViewTable t{{"record", "layer", "status", "row", "brightness", "rope_pos", "drift",
                 "left_at_tick", "reason", "score"},
                {}};
    if (!frame_) return t;
    const qint64 id = record_->value();
    for (const RecordInLayer& p : record_story(*frame_, id)) {
        const bool live = p.row >= 0, left = p.removal.tick >= 0;
        t.rows.append(
            {id, p.layer, QString(row_status_text(p.status)), p.row,
             live ? QVariant(p.brightness) : QVariant(), live ? QVariant(p.rope_pos) : QVariant(),
             p.drift ? QVariant(*p.drift) : QVariant(),
             left ? QVariant(qint64(p.removal.tick)) : QVariant(),
             left ? QVariant(QString(removal_reason_name(p.removal.cause.reason))) : QVariant(),
             left && p.removal.cause.score ? QVariant(*p.removal.cause.score) : QVariant()});
    }
    return t;
}

}  // namespace kvw
