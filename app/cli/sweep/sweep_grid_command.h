#pragma once
#include "../cli_args.h"

// kvw sweep over a grid (--plan, --run, --status, --resume, --merge): the options and what each
// does. Without them kvw sweep scores one text as before (cmd_sweep.cpp).
namespace kvw::cli {

// The grid's own options, appended to kvw sweep's table.
OptionTable sweep_grid_options();
// Whether the command line asks for the grid (one of --plan, --run, --status, --resume,
// --merge).
bool sweep_grid_requested(const CliArgs& args);
int run_sweep_grid(const CliArgs& args);

}  // namespace kvw::cli
