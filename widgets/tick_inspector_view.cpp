#include "widgets/tick_inspector_view.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <unordered_map>

#include "core/state/action_json.h"
#include "core/state/action_validation.h"
#include "widgets/view_colors.h"
#include "widgets/workbench_look.h"

namespace kvw {

namespace {

// Where the failed action sits in application order (last_actions); -1 when none.
int failed_position(const Frame& frame, const std::vector<int>& given) {
    const auto it = std::find(given.begin(), given.end(), frame.last_result.failed_action);
    return it == given.end() ? -1 : int(it - given.begin());
}

}  // namespace

QString tick_result_text(const Frame& frame) {
    const TickResult& r = frame.last_result;
    const QString head = QString("Tick %1: ").arg(frame.tick);
    if (r.rejected) {
        QString text = head + "list REJECTED by pre-flight, nothing changed";
        for (const ValidationError& e : r.rejections)
            text += "\n  " +
                    (e.action_index >= 0 ? QString("#%1 ").arg(e.action_index) : QString()) +
                    QString("%1: %2").arg(validation_rule_name(e.rule),
                                          QString::fromStdString(e.message));
        return text;
    }
    if (r.aborted) {
        const QString where = r.failed_action >= 0 ? QString("action #%1").arg(r.failed_action)
                                                   : QString("the appends");
        return head + QString("ABORTED in %1 (%2): %3; mirror restored%4")
                          .arg(QString::fromStdString(r.failed_primitive), where,
                               QString::fromStdString(r.abort_reason),
                               r.rebuilt ? ", cache rebuilt from it" : "");
    }
    if (frame.last_actions.empty()) return head + "no actions";
    return head + QString("applied %1 of %2 actions")
                      .arg(r.actions_applied)
                      .arg(frame.last_actions.size());
}

std::vector<int> given_indices(const Frame& frame) {
    std::vector<int> indices(frame.last_actions.size());
    for (size_t k = 0; k < indices.size(); ++k)
        indices[k] = k < frame.last_given_index.size() ? frame.last_given_index[k] : int(k);
    return indices;
}

std::vector<ActionOutcome> action_outcomes(const Frame& frame) {
    const TickResult& r = frame.last_result;
    const std::vector<int> given = given_indices(frame);
    // Each rejection's text under its action, once (not a search of every rejection per action).
    std::unordered_map<int, QStringList> reasons_of;
    for (const ValidationError& e : r.rejections)
        reasons_of[e.action_index] << QString("%1: %2").arg(validation_rule_name(e.rule),
                                                            QString::fromStdString(e.message));
    std::vector<ActionOutcome> out;
    out.reserve(frame.last_actions.size());
    for (size_t k = 0; k < frame.last_actions.size(); ++k) {
        const int i = given[k];
        const bool is_add = std::holds_alternative<AddAction>(frame.last_actions[k].op);
        if (r.rejected) {
            const auto found = reasons_of.find(i);
            const QStringList reasons = found == reasons_of.end() ? QStringList() : found->second;
            out.push_back(reasons.isEmpty()
                              ? ActionOutcome{"not applied (list rejected)", true}
                              : ActionOutcome{"rejected: " + reasons.join("; "), false});
        } else if (r.aborted) {
            // The batched appends fail together: failed_action is -1 then and every add failed.
            // Edits run before the appends, in application order, so whatever comes before the
            // failed action in last_actions ran.
            const bool failed = r.failed_action == i || (r.failed_action < 0 && is_add);
            const bool before =
                r.failed_action < 0 ? !is_add : int(k) < failed_position(frame, given);
            if (failed)
                out.push_back({QString("FAILED in %1: %2")
                                   .arg(QString::fromStdString(r.failed_primitive),
                                        QString::fromStdString(r.abort_reason)),
                               false});
            else
                out.push_back({before ? "applied, then undone" : "not reached", true});
        } else {
            static const QString applied = "applied";  // shared, not made per action
            out.push_back({applied, true});
        }
    }
    return out;
}

QString step_timings_text(const StepTimings& t) {
    return QString("sample %1 · brightness %2 · propose %3 · apply %4 (forward %5) · total %6")
        .arg(t.sample_ms, 0, 'f', 2)
        .arg(t.brightness_ms, 0, 'f', 2)
        .arg(t.propose_ms, 0, 'f', 2)
        .arg(t.apply_ms, 0, 'f', 2)
        .arg(t.forward_ms, 0, 'f', 2)
        .arg(t.total_ms, 0, 'f', 2);
}

TickInspectorView::TickInspectorView(QWidget* parent)
    : FrameView(parent),
      result_(new QLabel(this)),
      actions_(new ActionListTable(/*with_outcome=*/true, this)),
      timings_(new QLabel(this)) {
    result_->setObjectName("result");
    actions_->setObjectName("actions");
    timings_->setObjectName("timings");
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    timings_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(result_);
    layout->addWidget(actions_, 1);
    layout->addWidget(timings_);
}

void TickInspectorView::setFrame(FramePtr frame) {
    frame_ = frame;
    const TickResult& r = frame->last_result;
    result_->setText(tick_result_text(*frame));
    result_->setStyleSheet(r.rejected || r.aborted ? error_style_sheet() : QString());
    actions_->setActions(std::shared_ptr<const ActionList>(frame, &frame->last_actions),
                         frame->tokenizer, action_outcomes(*frame), given_indices(*frame));
    timings_->setText(wall_clock_hidden()
                          ? QString("Step times (ms): hidden in script runs (the trace has them)")
                          : "Step times (ms): " + step_timings_text(frame->timings));
}

ViewTable TickInspectorView::table() const {
    // The last tick's list in application order, each action with its outcome.
    ViewTable t{{"position", "given_index", "action", "ok", "outcome"}, {}};
    if (!frame_) return t;
    const std::vector<int> given = given_indices(*frame_);
    const std::vector<ActionOutcome> outcomes = action_outcomes(*frame_);
    for (size_t k = 0; k < frame_->last_actions.size(); ++k)
        t.rows.append({int(k), given[k], QString::fromStdString(to_json(frame_->last_actions[k])),
                       outcomes[k].ok, outcomes[k].text});
    return t;
}

}  // namespace kvw
