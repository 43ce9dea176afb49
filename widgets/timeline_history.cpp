#include "widgets/timeline_history.h"

#include <cmath>
#include <limits>

namespace kvw {

TimelinePoint timeline_point(const Frame& frame) {
    TimelinePoint p;
    p.tick = frame.tick;
    p.timings = frame.timings;
    double sum = 0;
    int64_t count = 0;
    for (const LayerFrame& layer : frame.layers) {
        p.rows.push_back(layer.rows());
        if (layer.record_brightness.empty()) continue;
        for (size_t r = 0; r < size_t(layer.rows()); ++r) sum += layer.brightness(r);
        count += layer.rows();
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    p.mean_brightness = count > 0 ? sum / double(count) : nan;
    if (frame.drift_measured) p.drifts.push_back(double(frame.max_drift));
    return p;
}

TimelineHistory::Change TimelineHistory::add(const Frame& frame) {
    TimelinePoint point = timeline_point(frame);
    Change change = Change::Appended;
    if (!points_.empty() &&
        (frame.prompt != prompt_ || point.rows.size() != points_.back().rows.size())) {
        points_.clear();
        change = Change::Reset;
    } else if (!points_.empty() && frame.tick < points_.back().tick) {
        // Went back: the state at frame.tick is the frame's, measured drifts included; the
        // tick's step times stay those measured when it ran (going back replays it quietly).
        keep_until(frame.tick);
        if (!points_.empty() && points_.back().tick == frame.tick) {
            point.timings = points_.back().timings;
            points_.pop_back();
        }
        change = Change::Truncated;
    } else if (!points_.empty() && frame.tick == points_.back().tick) {
        // A frame repeats the measurement it carries until the next one: a new value only.
        std::vector<double> drifts = std::move(points_.back().drifts);
        if (!point.drifts.empty() && (drifts.empty() || drifts.back() != point.drifts.front()))
            drifts.push_back(point.drifts.front());
        point.drifts = std::move(drifts);
        points_.pop_back();
        change = Change::ReplacedLast;
    }
    prompt_ = frame.prompt;
    points_.push_back(std::move(point));
    if (points_.size() > kMaxPoints) points_.pop_front();
    return change;
}

void TimelineHistory::keep_until(int64_t tick) {
    while (!points_.empty() && points_.back().tick > tick) points_.pop_back();
}

}  // namespace kvw
