// `pha runs tag|untag|note|rename|delete|export`: managing the runs of a store. A run is named by
// its id or a unique name (resolve_run, as `pha eval --run`); every argument is checked before
// anything is written, so bad input leaves the store as it was. Deleting goes through
// store::delete_runs (one transaction, files after the commit); the runs table export through
// runtime::runs_table, the functions the window calls too.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cmd_runs.h"
#include "commands.h"
#include "core/error.h"
#include "runtime/export.h"
#include "runtime/runs_export.h"
#include "store/run_manage.h"

namespace pha::cli {

namespace {

struct ManageOpts {
  RunLocator where;
  std::string id, text;
  std::vector<std::string> ids, tags;
  bool keep_files = false, yes = false;
};

void add_store_options(CLI::App* cmd, RunLocator& where) {
  cmd->add_option("--project", where.project, "Project folder (its runs.sqlite)");
  cmd->add_option("--store", where.store, "Run store file (instead of --project)");
}

std::string label(const store::RunInfo& r) { return std::to_string(r.id) + " \"" + r.name + "\""; }

std::string tags_line(store::Store& s, int64_t id) {
  std::string out;
  for (const auto& t : s.tags(id)) out += (out.empty() ? "" : ", ") + t;
  return out.empty() ? "none" : out;
}

void tag_runs(const ManageOpts& o, bool add) {
  auto s = store::Store::open(o.where.store_path());
  const store::RunInfo r = require_run(s, resolve_run(s, o.id, "ID"));
  const std::vector<std::string> had = s.tags(r.id);
  for (const auto& t : o.tags) {  // every tag checked before the first is written
    if (add) store::check_tag(t);
    else if (std::find(had.begin(), had.end(), t) == had.end())
      throw core::Error("TAG", "run " + label(r) + " has no tag \"" + t + "\" (its tags: " + tags_line(s, r.id) + ")");
  }
  for (const auto& t : o.tags) {
    if (add) s.add_tag(r.id, t);
    else s.remove_tag(r.id, t);
  }
  std::printf("run %s: tags %s\n", label(r).c_str(), tags_line(s, r.id).c_str());
}

void note_run(const ManageOpts& o) {
  auto s = store::Store::open(o.where.store_path());
  const store::RunInfo r = require_run(s, resolve_run(s, o.id, "ID"));
  s.set_notes(r.id, o.text);
  std::printf("run %s: %s\n", label(r).c_str(), o.text.empty() ? "notes cleared" : "notes set");
}

void rename_run(const ManageOpts& o) {
  if (o.text.find_first_not_of("0123456789") == std::string::npos && !o.text.empty())
    throw core::Error("NAME", "\"" + o.text + "\" would read as a run id wherever a run is named: give a name with a letter");
  auto s = store::Store::open(o.where.store_path());
  const store::RunInfo r = require_run(s, resolve_run(s, o.id, "ID"));
  s.rename_run(r.id, o.text);
  std::printf("run %lld: \"%s\" renamed to \"%s\" (its group stays \"%s\")\n", static_cast<long long>(r.id),
              r.name.c_str(), o.text.c_str(), r.group.c_str());
}

// "delete 2 runs (3 "a", 4 "b")? [y/N]" on the terminal; true when the answer is yes.
bool confirmed(const std::vector<store::RunInfo>& runs) {
  std::string names;
  for (size_t i = 0; i < runs.size() && i < 5; ++i) names += (i ? ", " : "") + label(runs[i]);
  if (runs.size() > 5) names += ", and " + std::to_string(runs.size() - 5) + " more";
  std::fprintf(stderr, "delete %zu run%s (%s)? [y/N] ", runs.size(), runs.size() == 1 ? "" : "s", names.c_str());
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes" || answer == "YES" || answer == "Yes";
}

void report_deleted(const store::DeletedRuns& d, bool keep_files) {
  for (const auto& r : d.runs) std::printf("deleted run %s\n", label(r).c_str());
  if (keep_files && !d.files.empty())
    std::printf("kept %zu checkpoint file%s (--keep-checkpoints), e.g. %s\n", d.files.size(),
                d.files.size() == 1 ? "" : "s", d.files.front().c_str());
  if (!keep_files && !d.files.empty())
    std::printf("removed %zu of %zu checkpoint files (and the run folders they left empty: %zu removed in all)\n",
                d.files.size() - d.failures.size(), d.files.size(), d.removed.size());
  for (const auto& f : d.failures) std::fprintf(stderr, "pha: could not remove %s\n", f.c_str());
  if (!d.failures.empty()) {
    std::fprintf(stderr, "pha: the runs are deleted; %zu of their files are left on disk\n", d.failures.size());
    throw ExitWith(kFailure);
  }
}

void delete_runs(const ManageOpts& o) {
  auto s = store::Store::open(o.where.store_path());
  std::vector<int64_t> ids;
  for (const auto& ref : o.ids) ids.push_back(resolve_run(s, ref, "ID"));
  const std::vector<store::RunInfo> runs = store::check_deletable(s, ids);
  if (!o.yes) {
    if (!isatty(STDIN_FILENO)) {
      std::fprintf(stderr, "pha: error: --yes: stdin is not a terminal, so nothing can ask before deleting; "
                           "give --yes to delete without asking (nothing was deleted)\n");
      throw ExitWith(kUsage);
    }
    if (!confirmed(runs)) {
      std::fprintf(stderr, "nothing deleted\n");
      throw ExitWith(kCancelled);
    }
  }
  report_deleted(store::delete_runs(s, ids, store::DeleteOptions{o.keep_files}), o.keep_files);
}

struct ExportOpts {
  RunLocator where;
  RunFilterOpts which;
  std::string format = "csv", out;
};

void export_runs(const ExportOpts& o) {
  auto s = store::Store::open(o.where.store_path());
  const runtime::RunsTable table = runtime::runs_table(s, o.which.filter());
  std::ostringstream os;
  if (o.format == "csv") runtime::write_runs_csv(table, os);
  else runtime::write_runs_jsonl(table, os);
  if (o.out.empty()) {
    std::cout << os.str();
    return;
  }
  runtime::write_file_atomically(o.out, os.str());
  std::fprintf(stderr, "%zu runs, %zu columns written to %s\n", table.rows.size(), table.columns.size(), o.out.c_str());
}

CLI::App* manage_command(CLI::App* runs, const char* name, const char* what, const std::shared_ptr<ManageOpts>& o) {
  auto* cmd = runs->add_subcommand(name, what);
  add_store_options(cmd, o->where);
  cmd->add_option("id", o->id, "Run id or unique run name (see `pha runs list`)")->required();
  return cmd;
}

void add_edit_commands(CLI::App* runs) {
  for (bool add : {true, false}) {
    auto o = std::make_shared<ManageOpts>();
    auto* cmd = manage_command(runs, add ? "tag" : "untag",
                               add ? "Add tags to a run (a tag is one word)" : "Remove tags from a run", o);
    cmd->add_option("tags", o->tags, "Tags")->required()->expected(-1);
    cmd->callback([o, add] { tag_runs(*o, add); });
  }
  auto n = std::make_shared<ManageOpts>();
  auto* note = manage_command(runs, "note", "Set a run's notes (\"\" clears them)", n);
  note->add_option("text", n->text, "The notes (replace the old ones)")->required();
  note->callback([n] { note_run(*n); });
  auto r = std::make_shared<ManageOpts>();
  auto* ren = manage_command(runs, "rename", "Rename a run (its group of replicas stays)", r);
  ren->add_option("name", r->text, "The new name")->required();
  ren->callback([r] { rename_run(*r); });
}

void add_delete_command(CLI::App* runs) {
  auto o = std::make_shared<ManageOpts>();
  auto* cmd = runs->add_subcommand("delete", "Delete runs: every row they recorded in one transaction, then their "
                                             "checkpoint files");
  add_store_options(cmd, o->where);
  cmd->add_option("ids", o->ids, "Run ids or unique run names")->required()->expected(-1);
  cmd->add_flag("--keep-checkpoints", o->keep_files, "Leave the runs' checkpoint files on disk");
  cmd->add_flag("--yes,-y", o->yes, "Do not ask (needed when stdin is not a terminal)");
  cmd->callback([o] { delete_runs(*o); });
}

void add_export_command(CLI::App* runs) {
  auto o = std::make_shared<ExportOpts>();
  auto* cmd = runs->add_subcommand("export", "The runs table: one row per run with its record, tags, notes, "
                                             "flattened config keys and final metrics (for pandas)");
  add_store_options(cmd, o->where);
  cmd->add_option("--format", o->format, "csv | jsonl")->check(CLI::IsMember({"csv", "jsonl"}));
  cmd->add_option("--out", o->out, "Output file, written atomically (default: stdout)");
  add_filter_options(cmd, o->which);
  cmd->callback([o] { export_runs(*o); });
}

}  // namespace

void add_manage_commands(CLI::App* runs) {
  add_edit_commands(runs);
  add_delete_command(runs);
  add_export_command(runs);
}

}  // namespace pha::cli
