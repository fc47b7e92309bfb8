// `pha runs recover PROJECT`: a damaged store (one that fails PRAGMA quick_check) is rebuilt from
// what SQLite can still read of it (store::recover_store); the damaged file is kept beside the
// new one. Prints what was saved, table by table and run by run.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cmd_runs.h"
#include "store/store_recover.h"

namespace pha::cli {

namespace {

std::string count(std::int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

void print_report(const store::RecoveryReport& r) {
  std::printf("%s was damaged (PRAGMA quick_check: %s%s)\n", r.store_path.c_str(),
              r.problems.empty() ? "ok; rebuilt on request" : r.problems.front().c_str(),
              r.problems.size() > 1 ? (", and " + std::to_string(r.problems.size() - 1) + " more").c_str() : "");
  std::printf("saved into a new %s (PRAGMA integrity_check: %s):\n", r.store_path.c_str(), r.integrity.c_str());
  for (const auto& t : r.tables) {
    std::printf("  %-16s %10s saved", t.table.c_str(), count(t.saved).c_str());
    if (t.duplicates > 0) std::printf(", %s read twice (kept once)", count(t.duplicates).c_str());
    if (t.rejected > 0) std::printf(", %s refused (wrong shape, or their run or key was not saved)", count(t.rejected).c_str());
    if (t.unreadable > 0)
      std::printf(", unreadable in %s place%s (%s)", count(t.unreadable).c_str(), t.unreadable == 1 ? "" : "s",
                  t.error.c_str());
    std::printf("\n");
  }
  std::printf("  summaries and rollups rebuilt from the saved points\n");
  std::printf("runs saved (id, name, status: metric points, evaluations, checkpoints, mixer snapshots, perf rows):\n");
  for (const auto& run : r.runs)
    std::printf("  %4lld  %-28s %-11s %8s points %5s evals %3s checkpoints %5s mixer %4s perf\n",
                static_cast<long long>(run.id), run.name.c_str(), run.status.c_str(), count(run.points).c_str(),
                count(run.evals).c_str(), count(run.checkpoints).c_str(), count(run.mixer).c_str(),
                count(run.perf).c_str());
  std::printf("the damaged file is kept as %s", r.damaged_path.c_str());
  if (r.kept_files.size() > 1) std::printf(" (with its %zu companion file%s)", r.kept_files.size() - 1, r.kept_files.size() == 2 ? "" : "s");
  std::printf("\n");
}

}  // namespace

void add_recover_command(CLI::App* runs) {
  struct Opts {
    RunLocator where;
    std::string project;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = runs->add_subcommand(
      "recover", "Rebuild a damaged run store (one that fails PRAGMA quick_check) from what can still be read; "
                 "the damaged file is kept beside it as runs.sqlite.damaged-<time>");
  cmd->add_option("project", o->project, "Project folder (its runs.sqlite)");
  cmd->add_option("--store", o->where.store, "Run store file (instead of the project folder)");
  cmd->add_flag("--force", o->force, "Rebuild the store even when it passes the check");
  cmd->callback([o] {
    o->where.project = o->project;
    store::RecoverOptions options;
    options.force = o->force;
    print_report(store::recover_store(o->where.store_path(), options));
  });
}

}  // namespace pha::cli
