// Sub-command registration for the `pha` CLI: each area adds its commands to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace pha::cli {

// Options every command shares.
struct GlobalOptions {
  int threads = 0;  // 0: all cores (or $PHA_THREADS)
};

void add_info_command(CLI::App& app, GlobalOptions& global);
void add_model_commands(CLI::App& app, GlobalOptions& global);  // model, bench model
void add_data_commands(CLI::App& app, GlobalOptions& global);   // data preview|dump|stats

// Exit codes (documented in README and docs/cli.md).
enum ExitCode : int {
  kOk = 0,
  kFailure = 1,      // runtime failure (engine error)
  kUsage = 2,        // bad command line
  kBadInput = 3,     // bad config / project / data file
};

}  // namespace pha::cli
