#pragma once
#include "cli_args.h"
#include "core/policy/policy_table.h"
#include "core/session/session.h"

namespace kvw::cli {

// --policy, --sink, --budget, --window, --gate, --rope, --layout, --k-type, --v-type, --wlod-k,
// --wlod-max: how a Session edits and stores its cache (kvw run, perplexity, compare, sweep). The
// policy list and its help come from policy_table(). A command taking them also takes --seed (the
// random policy's seed).
OptionTable session_options();
// Reads them into `options`. Throws UsageError.
void read_session_options(const CliArgs& args, SessionOptions& options);
// --gate given while none of `policies` is smartkv, the one policy that reads it: UsageError.
void refuse_unread_gate(const CliArgs& args, const std::vector<std::string>& policies);
// --sink, --budget, --window, --gate and --seed alone.
PolicyOptions policy_options_from_args(const CliArgs& args);
// The same but --budget, for commands whose budget B is their own (sweep's --budgets).
PolicyOptions policy_options_but_budget(const CliArgs& args);

}  // namespace kvw::cli
