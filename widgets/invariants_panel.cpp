#include "widgets/invariants_panel.h"

#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/read_only_table.h"
#include "widgets/view_colors.h"

namespace kvw {

namespace {

QString number_or_dash(int64_t value) { return value < 0 ? QString("—") : QString::number(value); }

}  // namespace

QString drift_summary_text(const Frame& frame) {
    // What drift compares is said every time: a number alone reads as an error.
    const QString against = "Drift (each layer against a fresh pass over its own tokens)";
    if (!frame.drift_measured) return against + ": not measured for this state (Measure drift)";
    QString text = against + QString(": max %1").arg(double(frame.max_drift), 0, 'g', 3);
    if (frame.drift_tolerance > 0)
        text +=
            QString(", tolerance %1 (K %2 / V %3 rounding)")
                .arg(double(frame.drift_tolerance), 0, 'g', 2)
                .arg(QString::fromStdString(frame.k_type), QString::fromStdString(frame.v_type));
    if (frame.first_diverging_layer >= 0)
        text += QString(", first diverging layer %1").arg(frame.first_diverging_layer);
    else
        text += ", no layer diverges";
    return text;
}

QString storage_summary_text(const Frame& frame) {
    QString text =
        QString("Storage: K %1, V %2")
            .arg(QString::fromStdString(frame.k_type), QString::fromStdString(frame.v_type));
    QStringList layers;
    for (size_t l = 0; l < frame.layers.size(); ++l) {
        const LayerFrame& f = frame.layers[l];
        const uint64_t saturated = f.k_stats.saturated + f.v_stats.saturated;
        const uint64_t nans = f.k_stats.nan_inputs + f.v_stats.nan_inputs;
        if (saturated == 0 && nans == 0 && f.nonfinite_scales == 0) continue;
        layers << QString("layer %1: %2 saturated (K %3, V %4), %5 NaN inputs, %6 bad scales")
                      .arg(l)
                      .arg(saturated)
                      .arg(f.k_stats.saturated)
                      .arg(f.v_stats.saturated)
                      .arg(nans)
                      .arg(f.nonfinite_scales);
    }
    return text + (layers.empty() ? ": no saturated values, NaN inputs or bad scales"
                                  : "; " + layers.join("; "));
}

InvariantsPanel::InvariantsPanel(QWidget* parent)
    : FrameView(parent),
      summary_(new QLabel(this)),
      table_(new QTableWidget(this)),
      drift_(new QLabel(this)),
      storage_(new QLabel(this)) {
    summary_->setObjectName("summary");
    table_->setObjectName("invariants");
    drift_->setObjectName("drift");
    setup_read_only_table(table_, {"Invariant", "Status", "Last held", "Layer", "Row", "Detail"});
    drift_->setWordWrap(true);
    storage_->setObjectName("storage");
    storage_->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    layout->addWidget(drift_);
    layout->addWidget(storage_);

    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) { selectFailure(row); });
}

std::vector<size_t> invariant_display_order(const std::vector<InvariantStatus>& list) {
    // Failing first, so that a failure is never below the fold; those that do not apply last.
    const auto group = [](const InvariantStatus& s) {
        return !s.passed ? 0 : s.not_applicable.empty() ? 1 : 2;
    };
    std::vector<size_t> order(list.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return group(list[a]) < group(list[b]); });
    return order;
}

void InvariantsPanel::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    const std::vector<InvariantStatus>& list = frame_->invariants;
    const auto failing =
        std::count_if(list.begin(), list.end(), [](const InvariantStatus& s) { return !s.passed; });
    const auto idle = std::count_if(list.begin(), list.end(), [](const InvariantStatus& s) {
        return !s.not_applicable.empty();
    });
    const QString idle_text =
        idle > 0 ? QString(" (%1 more do not apply now)").arg(idle) : QString();
    if (failing == 0) {
        summary_->setText(QString("All %1 invariants hold at tick %2")
                              .arg(qsizetype(list.size()) - idle)
                              .arg(frame_->tick) +
                          idle_text);
        summary_->setStyleSheet({});
    } else {
        summary_->setText(QString("%1 of %2 invariants FAIL at tick %3")
                              .arg(failing)
                              .arg(qsizetype(list.size()) - idle)
                              .arg(frame_->tick) +
                          idle_text);
        summary_->setStyleSheet(error_style_sheet());
    }

    order_ = invariant_display_order(list);
    const TableFill fill(table_);
    table_->setRowCount(int(list.size()));
    for (int i = 0; i < int(list.size()); ++i) {
        const InvariantStatus& s = list[order_[size_t(i)]];
        const bool idle_here = !s.not_applicable.empty();
        table_->setItem(i, Name, read_only_cell(QString::fromStdString(s.name)));
        QTableWidgetItem* status = read_only_cell(!s.passed ? "FAIL" : idle_here ? "N/A" : "PASS");
        status->setBackground(!s.passed   ? fail_color()
                              : idle_here ? not_applicable_color()
                                          : pass_color());
        status->setForeground(QColor(Qt::black));
        table_->setItem(i, Status, status);
        table_->setItem(i, LastHeld, read_only_cell(number_or_dash(s.last_held_tick)));
        table_->setItem(i, Layer, read_only_cell(s.passed ? QString() : number_or_dash(s.layer)));
        table_->setItem(i, Row, read_only_cell(s.passed ? QString() : number_or_dash(s.row)));
        const std::string& detail = s.passed ? s.not_applicable : s.detail;
        QTableWidgetItem* detail_cell = read_only_cell(QString::fromStdString(detail));
        detail_cell->setToolTip(detail_cell->text());  // a long reason is cut in a narrow dock
        table_->setItem(i, Detail, detail_cell);
    }
    drift_->setText(drift_summary_text(*frame_));
    storage_->setText(storage_summary_text(*frame_));
}

void InvariantsPanel::selectFailure(int table_row) {
    if (!frame_ || table_row < 0 || table_row >= int(order_.size())) return;
    const InvariantStatus& s = frame_->invariants[order_[size_t(table_row)]];
    if (s.passed || s.layer < 0) return;
    if (s.row >= 0) emit rowSelected(s.layer, s.row);
    emit layerSelected(s.layer);
}

ViewTable InvariantsPanel::table() const {
    // In the panel's order; not_applicable: why an invariant does not apply now (it passes).
    ViewTable t{
        {"invariant", "passed", "last_held_tick", "layer", "row", "detail", "not_applicable"}, {}};
    if (!frame_) return t;
    for (size_t i : order_) {
        const InvariantStatus& s = frame_->invariants[i];
        t.rows.append({QString::fromStdString(s.name), s.passed, qint64(s.last_held_tick), s.layer,
                       s.row, QString::fromStdString(s.detail),
                       QString::fromStdString(s.not_applicable)});
    }
    return t;
}

}  // namespace kvw
