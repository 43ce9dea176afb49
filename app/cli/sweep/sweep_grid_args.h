#pragma once
#include <string>
#include <vector>

#include "../cli_args.h"
#include "core/sweep/sweep_plan.h"

// kvw sweep --plan DIR: the grid the options describe, as a checked plan (docs/ARCHITECTURE.md
// §12, "Sweeps").
namespace kvw::cli {

// --model repeated; --file repeated, each a text, a folder (its files, by name) or a list file
// (*.list: a path a line, relative to the list's folder; blank lines and # comments skipped);
// --policy repeated (full: the full cache; default: full and every selective policy);
// --budgets, --sink, --window, --k-type, --v-type, --layout, --rope as comma lists. The plan is
// model files and texts as absolute paths; checked before it is returned: SweepError naming the
// first cell that cannot run (check_cells; a text that is missing or shorter than a chunk for its
// model).
SweepPlan plan_from_args(const CliArgs& args);

// The texts --file names, expanded as above, in order.
std::vector<std::string> expand_texts(const std::vector<std::string>& given);

// XXH64 of a model's bytes (hash_hex): a file's, a folder's files' (name and bytes, by name), a
// built-in model's file's; a synthetic model is its spec (its weights follow from it).
std::string model_content_hash(const std::string& spec);

}  // namespace kvw::cli
