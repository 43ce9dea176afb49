#pragma once
#include <stdexcept>
#include <string>

#include "core/session/session.h"

namespace kvw {

// Two session settings that each are valid but cannot hold together: the session would run and
// fail its invariants on every tick (issue 26 item 3). The message names both settings as the
// command line spells them; first() is the one the refused command was changing (the field a
// form shows the error beside, refused_setting), second() the one it collides with.
class OptionConflict : public std::invalid_argument {
public:
    OptionConflict(std::string first, std::string second, const std::string& what)
        : std::invalid_argument(what), first_(std::move(first)), second_(std::move(second)) {}
    const std::string& first() const { return first_; }
    const std::string& second() const { return second_; }

private:
    std::string first_;
    std::string second_;
};

// The setting a change is about, so that a conflict names it first.
enum class ChangedSetting { None, Layout, Policy, Wlod };

// Throws OptionConflict when `o` (capacity already resolved, as a Session holds it) combines:
//  - a selective policy with a ring smaller than its sink + budget + window rows (the ring
//    would overwrite rows the policy keeps),
//  - a selective or the focus policy with ring frames of more than one token (the policy makes
//    room for one token a tick, a frame appends N),
//  - focus with a W_max it cannot fold down to (below the first foldable block + 2K).
void check_option_conflicts(const SessionOptions& o, ChangedSetting changed = ChangedSetting::None);

}  // namespace kvw
