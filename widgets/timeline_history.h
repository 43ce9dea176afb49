#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <QMetaType>

#include "core/session/frame.h"

namespace kvw {

// What the timeline plots of one tick.
struct TimelinePoint {
    int64_t tick = 0;
    StepTimings timings;
    std::vector<int> rows;   // [layer] live rows
    double mean_brightness;  // over every live row of every layer; NaN without rows
    // Every distinct max drift measured at this tick, oldest first (a measurement, a rebuild,
    // another measurement: both stay visible); empty while none was.
    std::vector<double> drifts;
};

TimelinePoint timeline_point(const Frame& frame);

// The points of successive frames of one run. A frame at the tick of the last point (an edit,
// a drift measurement) replaces it, keeping the drifts measured there before. A frame whose tick
// goes backwards (undo, a restored snapshot, a new start of the same prompt) drops the points
// after its tick and replaces the one at its tick (keeping the step times measured when that tick
// ran): the ticks before it happened as plotted. A
// frame whose prompt differs or whose layer count differs starts a new run. The oldest points go
// beyond kMaxPoints.
class TimelineHistory {
public:
    enum class Change { Appended, ReplacedLast, Truncated, Reset };
    Change add(const Frame& frame);
    // Drops the points after `tick`: what a fork at `tick` inherits of its parent's run.
    void keep_until(int64_t tick);

    const std::deque<TimelinePoint>& points() const { return points_; }
    int layers() const { return points_.empty() ? 0 : int(points_.front().rows.size()); }

    static constexpr size_t kMaxPoints = 20000;

private:
    std::deque<TimelinePoint> points_;
    std::string prompt_;
};

// A whole history at once: the ticks of an opened trace, made on the worker as it replays them.
using TimelineHistoryPtr = std::shared_ptr<const TimelineHistory>;

}  // namespace kvw

Q_DECLARE_METATYPE(kvw::TimelineHistoryPtr)
