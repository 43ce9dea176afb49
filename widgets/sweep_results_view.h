#pragma once
#include <QWidget>
#include <filesystem>
#include <memory>

#include "core/sweep/sweep_plan.h"

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace kvw {

// A sweep's folder in the window (File ▸ Open sweep results, docs/ARCHITECTURE.md §12,
// "Sweeps"): a row per cell of its plan — model, text, configuration and, where its shard is
// done, the tokens scored and the perplexity — and the merged sweep.csv drawn as kvw sweep
// --plot draws it. Double-clicking a row asks for that cell as a live session at its start
// (cellActivated; the main window opens it).
class SweepResultsView : public QWidget {
    Q_OBJECT
public:
    explicit SweepResultsView(QWidget* parent = nullptr);

    // Reads DIR's plan, its shards and sweep.csv; false with `error` (the view unchanged) when
    // DIR holds no plan or a shard is not this plan's.
    bool open(const std::filesystem::path& dir, QString& error);
    // The plan read by the last open() (null before one succeeded).
    std::shared_ptr<const SweepPlan> plan() const { return plan_; }
    QTableWidget* table() const { return table_; }
    QCustomPlot* plot() const { return plot_; }

signals:
    void cellActivated(qint64 cell);

private:
    std::shared_ptr<const SweepPlan> plan_;
    QLabel* summary_;
    QTableWidget* table_;
    QCustomPlot* plot_;
};

}  // namespace kvw
