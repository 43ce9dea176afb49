#pragma once
#include <vector>

#include "widgets/action_list_table.h"
#include "widgets/frame_view.h"

class QLabel;

namespace kvw {

// The last tick: what Step 4 did with its list (applied, rejected with reasons, aborted with the
// primitive and reason), the list in application order with each action's outcome, and the
// time each step took.
class TickInspectorView : public FrameView {
    Q_OBJECT
public:
    explicit TickInspectorView(QWidget* parent = nullptr);
    QString viewName() const override { return "tick"; }
    ViewTable table() const override;

public slots:
    void setFrame(kvw::FramePtr frame) override;

private:
    FramePtr frame_;
    QLabel* result_;
    ActionListTable* actions_;
    QLabel* timings_;
};

// One line (or, for a rejection, one line per reason) saying what Step 4 did.
QString tick_result_text(const Frame& frame);
// The index in the list as given of each action of frame.last_actions (the # column; what
// failed_action and the rejections refer to).
std::vector<int> given_indices(const Frame& frame);
// What became of each action of frame.last_actions.
std::vector<ActionOutcome> action_outcomes(const Frame& frame);
QString step_timings_text(const StepTimings& timings);

}  // namespace kvw
