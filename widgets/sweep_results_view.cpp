#include "sweep_results_view.h"

#include <qcustomplot.h>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/sweep/plan_dir.h"
#include "core/sweep/shard_file.h"
#include "core/sweep/sweep_error.h"
#include "read_only_table.h"
#include "sweep_figure.h"

namespace kvw {

namespace {

const QStringList kHeaders = {"cell", "model", "text",   "policy", "S",      "B",         "W",
                              "K",    "V",     "layout", "RoPE",   "tokens", "perplexity"};

QString file_name(const std::string& path) {
    return QFileInfo(QString::fromStdString(path)).fileName();
}

}  // namespace

SweepResultsView::SweepResultsView(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel(this)),
      table_(new QTableWidget(this)),
      plot_(new QCustomPlot(this)) {
    setup_read_only_table(table_, kHeaders);
    summary_->setWordWrap(true);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(plot_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (plan_ && row >= 0 && row < int(plan_->cells.size())) emit cellActivated(row);
    });
}

bool SweepResultsView::open(const std::filesystem::path& dir, QString& error) {
    auto plan = std::make_shared<SweepPlan>();
    std::vector<std::optional<CellResult>> results;
    try {
        *plan = plan_dir::read_plan(dir);
        results.resize(plan->cells.size());
        for (int s = 0; s < plan->shards(); ++s)
            if (const auto shard = read_shard(dir, *plan, s))
                for (const CellResult& r : *shard) results[size_t(r.index)] = r;
    } catch (const SweepError& e) {
        error = e.what();
        return false;
    }
    plan_ = std::move(plan);
    int done = 0;
    {
        TableFill fill(table_);
        table_->setRowCount(int(plan_->cells.size()));
        for (const SweepCell& cell : plan_->cells) {
            const SweepConfig& c = cell.config;
            const int row = int(cell.index);
            const auto budget = [&](int v) { return c.full() ? QString() : QString::number(v); };
            const std::optional<CellResult>& r = results[size_t(row)];
            done += r.has_value();
            const QStringList texts = {
                QString::number(cell.index),
                QString::fromStdString(plan_->models[size_t(cell.model)].spec),
                file_name(plan_->texts[size_t(cell.text)]),
                QString::fromStdString(c.policy),
                budget(c.budget.sink),
                budget(c.budget.budget),
                budget(c.budget.window),
                name_in(kKvTypeNames, c.k_type),
                name_in(kKvTypeNames, c.v_type),
                c.full() ? QString() : QString(name_in(kCacheLayoutNames, c.layout)),
                c.full() ? QString("original") : QString(name_in(kRopePolicyNames, c.rope)),
                r ? QString::number(r->scored) : QString("—"),
                r && r->scored > 0 ? QString::number(std::exp(r->nll / double(r->scored)), 'f', 4)
                                   : QString("—")};
            for (int col = 0; col < texts.size(); ++col)
                table_->setItem(row, col, read_only_cell(texts[col]));
        }
    }
    SweepFigure figure;
    QString plot_error;
    const QString table = QString::fromStdString(plan_dir::table(dir).string());
    const bool merged = QFileInfo::exists(table) && read_sweep_figure(table, figure, plot_error);
    if (merged) draw_sweep_figure(*plot_, figure);
    plot_->setVisible(merged);
    plot_->replot();
    summary_->setText(
        QString("%1: %2 cells, %3 with results%4. Double-click a cell to open it "
                "as a live session at the start of its text.")
            .arg(QString::fromStdString(dir.string()))
            .arg(plan_->cells.size())
            .arg(done)
            .arg(merged ? QString() : QString("; not merged yet (kvw sweep --merge)")));
    return true;
}

}  // namespace kvw
