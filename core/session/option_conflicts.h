#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

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
enum class ChangedSetting { None, Layout, Policy, Wlod, Rope };

// Throws OptionConflict when `o` (capacity already resolved, as a Session holds it) combines:
//  - a selective policy with a ring smaller than its sink + budget + window rows (the ring
//    would overwrite rows the policy keeps),
//  - a selective or the focus policy with ring decode blocks of more than one token (the policy
//    makes room for one token a tick, a block appends N),
//  - focus with a W_max it cannot fold down to (below the first foldable block + 2K),
//  - wLOD under a policy other than manual and focus (no row at or before a gist may be
//    deleted or merged: the policy's edits were rejected once a block was collapsed),
//  - wLOD with a RoPE policy other than final_index (a gist takes its central leaf's phase,
//    which reindex and original rewrite: every collapse was aborted).
void check_option_conflicts(const SessionOptions& o, ChangedSetting changed = ChangedSetting::None);

// Whether the policy deletes or merges single rows: every policy of the table but manual (no
// proposals) and focus (which folds whole blocks). No row at or before a gist may be deleted or
// merged, so gist rows and such a policy never meet: wLOD on under it is a conflict above, and
// the two below keep gists made with wLOD off (K kept) from meeting it.
bool policy_edits_rows(std::string_view proposer);
// OptionConflict ("policy", "collapse") when `proposer` edits rows and `state` holds a gist row.
void check_no_gist_rows_under(std::string_view proposer, const StateManager& state);
// OptionConflict ("collapse", "policy") when `actions` collapse under a policy that edits rows.
void check_no_collapse_under(std::string_view proposer, const ActionList& actions);

}  // namespace kvw
