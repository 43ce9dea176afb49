#include "core/session/invariant_history.h"

#include <algorithm>

namespace kvw {

void InvariantHistory::record(const std::vector<InvariantResult>& results, int64_t tick) {
    // An invariant no longer checked (wLOD turned off, a policy without bookkeeping) is no
    // longer shown: its last verdict would read as a current one.
    std::erase_if(statuses_, [&](const InvariantStatus& s) {
        return std::none_of(results.begin(), results.end(),
                            [&](const InvariantResult& r) { return r.name == s.name; });
    });
    for (InvariantStatus& s : statuses_) s.passed = true;
    std::vector<bool> failed_seen(statuses_.size() + results.size(), false);
    std::vector<bool> applies(failed_seen.size(), false);
    std::vector<std::string> not_applicable(failed_seen.size());
    for (const InvariantResult& r : results) {
        auto it = std::find_if(statuses_.begin(), statuses_.end(),
                               [&](const InvariantStatus& s) { return s.name == r.name; });
        if (it == statuses_.end()) {
            InvariantStatus fresh;
            fresh.name = r.name;
            statuses_.push_back(std::move(fresh));
            it = statuses_.end() - 1;
        }
        const size_t index = size_t(it - statuses_.begin());
        if (r.not_applicable.empty())
            applies[index] = true;
        else if (not_applicable[index].empty())
            not_applicable[index] = r.not_applicable;
        if (!r.passed && !failed_seen[index]) {  // the first failing layer describes it
            failed_seen[index] = true;
            it->passed = false;
            it->layer = r.layer;
            it->row = r.row;
            it->detail = r.detail;
        }
    }
    for (size_t i = 0; i < statuses_.size(); ++i)
        statuses_[i].not_applicable = applies[i] ? std::string() : std::move(not_applicable[i]);
    for (InvariantStatus& s : statuses_)
        if (s.passed) {
            s.last_held_tick = tick;
            s.layer = s.row = -1;
            s.detail.clear();
        }
}

bool InvariantHistory::all_passed() const {
    return std::all_of(statuses_.begin(), statuses_.end(),
                       [](const InvariantStatus& s) { return s.passed; });
}

}  // namespace kvw
