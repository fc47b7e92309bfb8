// Shared by the commands that read a store: where it is (--project DIR or --store FILE) and
// which run (--run ID).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/runs_export.h"
#include "store/store.h"

namespace pha::cli {

struct RunLocator {
  std::string project;  // project folder: its runs.sqlite
  std::string store;    // or the store file itself
  int64_t run = 0;
  std::string store_path() const;  // core::Error when neither is given or the store is missing
};

void add_locator_options(CLI::App* cmd, RunLocator& where, bool needs_run);
store::RunInfo require_run(store::Store& store, int64_t run_id);
// "12" -> run 12 (which must exist); otherwise a run name, which must name exactly one run of
// the store. core::Error naming `argument` otherwise (listing the ids when the name is ambiguous).
int64_t resolve_run(store::Store& store, const std::string& id_or_name, const std::string& argument = "--run");

// --kind, --status, --group, --tag (repeatable): which runs `pha runs list` and `export` take.
struct RunFilterOpts {
  std::string kind, status, group;
  std::vector<std::string> tags;
  runtime::RunFilter filter() const;
};
void add_filter_options(CLI::App* cmd, RunFilterOpts& f);

// `pha runs recover` (cmd_runs_recover.cpp).
void add_recover_command(CLI::App* runs);
// `pha runs tag|untag|note|rename|delete|export` (cmd_runs_manage.cpp).
void add_manage_commands(CLI::App* runs);

}  // namespace pha::cli
