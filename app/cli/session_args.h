#pragma once
#include "cli_args.h"
#include "core/session/session.h"

namespace kvw::cli {

// --policy, --rope, --layout, --wlod-k, --wlod-max: how a Session edits and stores its cache (kvw
// run, kvw perplexity).
OptionTable session_options();
// Reads them into `options`. Throws UsageError.
void read_session_options(const CliArgs& args, SessionOptions& options);

}  // namespace kvw::cli
