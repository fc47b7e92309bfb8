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
void add_train_commands(CLI::App& app, GlobalOptions& global);  // train, quickstart, generate
void add_runs_commands(CLI::App& app, GlobalOptions& global);   // runs list|show, export
void add_bench_commands(CLI::App& app, GlobalOptions& global);  // bench, __profile-point (hidden)
void add_eval_command(CLI::App& app, GlobalOptions& global);    // eval
void add_report_command(CLI::App& app, GlobalOptions& global);  // report
void add_plan_command(CLI::App& app, GlobalOptions& global);    // plan
void add_search_command(CLI::App& app, GlobalOptions& global);  // search
void add_lens_command(CLI::App& app, GlobalOptions& global);    // lens weights|knockout|tokens|spectrum|attention

// Exit codes (documented in README and docs/cli.md).
enum ExitCode : int {
  kOk = 0,
  kFailure = 1,      // runtime failure (engine error)
  kUsage = 2,        // bad command line
  kBadInput = 3,     // bad config / project / data file
  kDiverged = 4,     // a run diverged (NaN/Inf or exploding loss)
  kCancelled = 5,    // a run was cancelled (Ctrl-C / SIGTERM) or interrupted
};

// Thrown by a command callback to end `pha` with a given exit code (after its output).
struct ExitWith {
  int code;
  explicit ExitWith(int c) : code(c) {}
};

}  // namespace pha::cli
