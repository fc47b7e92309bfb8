#include "store/run_manage.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "store/sqlite_db.h"

namespace pha::store {

using detail::StmtScope;
using detail::Transaction;

namespace fs = std::filesystem;

// Every run exists and none is being written (inside delete_runs' transaction, and before it).
std::vector<RunInfo> check_deletable(Store& store, const std::vector<std::int64_t>& ids) {
  std::vector<RunInfo> runs;
  for (std::int64_t id : ids) {
    auto r = store.get_run(id);
    if (!r) throw core::Error(store.path(), "no run with id " + std::to_string(id) + "; nothing was deleted");
    if (r->status == RunStatus::Running)
      throw core::Error(store.path(), "run " + std::to_string(id) + " \"" + r->name + "\" is running (writer process " +
                                    std::to_string(r->pid) + " on " + r->host +
                                    "): stop it first (Ctrl-C, or Cancel in the window); nothing was deleted");
    r->config_json.clear();  // large, and not needed by anyone who reads what was deleted
    runs.push_back(std::move(*r));
  }
  return runs;
}

namespace {

std::vector<std::int64_t> unique_ids(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> out;
  for (std::int64_t id : ids)
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

// The checkpoint files of the runs that no other run's checkpoint row names.
std::vector<std::string> own_files(Store& store, const std::string& ids_json) {
  StmtScope s(store.db().stmt(
      "SELECT DISTINCT c.path FROM checkpoints c WHERE c.run_id IN (SELECT value FROM json_each(?1)) "
      "AND NOT EXISTS (SELECT 1 FROM checkpoints o WHERE o.path = c.path "
      "                AND o.run_id NOT IN (SELECT value FROM json_each(?1))) ORDER BY c.path"));
  s->bind(1, ids_json);
  std::vector<std::string> files;
  while (s->step()) files.push_back(s->text(0));
  return files;
}

void remove_one(const fs::path& p, DeletedRuns& out) {
  std::error_code ec;
  if (fs::remove(p, ec)) out.removed.push_back(p.string());
  else if (ec) out.failures.push_back(p.string() + ": " + ec.message());
}

// After the commit: the files, then the runs' own folders (checkpoints/run-<id>) left empty.
void remove_files(const std::vector<std::int64_t>& ids, DeletedRuns& out) {
  std::set<std::string> run_folders;
  for (std::int64_t id : ids) run_folders.insert("run-" + std::to_string(id));
  std::set<fs::path> parents;
  for (const std::string& f : out.files) {
    remove_one(f, out);
    const fs::path parent = fs::path(f).parent_path();
    if (run_folders.count(parent.filename().string())) parents.insert(parent);
  }
  for (const fs::path& dir : parents) {
    std::error_code ec;
    if (fs::is_directory(dir, ec) && fs::is_empty(dir, ec)) remove_one(dir, out);
  }
}

}  // namespace

void check_tag(const std::string& tag) {
  if (tag.empty() || tag.find_first_of(" \t\r\n,") != std::string::npos)
    throw core::Error("tag", "\"" + tag + "\": a tag is one word, not empty, without spaces or commas");
}

DeletedRuns delete_runs(Store& store, const std::vector<std::int64_t>& ids, const DeleteOptions& options) {
  const std::vector<std::int64_t> todo = unique_ids(ids);
  const std::string ids_json = nlohmann::json(todo).dump();
  DeletedRuns out;
  {
    Transaction tx(store.db(), Transaction::Kind::Write);
    out.runs = check_deletable(store, todo);
    out.files = own_files(store, ids_json);
    {
      StmtScope s(store.db().stmt("DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?1))"));
      s->bind(1, ids_json);
      s->run();  // ON DELETE CASCADE removes every row that references the runs
    }
    tx.commit();
  }
  if (!options.keep_files) remove_files(todo, out);
  return out;
}

void restart_run(Store& store, std::int64_t run_id, const std::string& env_json) {
  Transaction tx(store.db(), Transaction::Kind::Write);
  const auto run = store.get_run(run_id);
  if (!run) throw core::Error(store.path(), "no run with id " + std::to_string(run_id) + " to restart");
  if (run->status != RunStatus::Cancelled && run->status != RunStatus::Interrupted)
    throw core::Error(store.path(), "run " + std::to_string(run_id) + " is " + to_string(run->status) +
                                  "; only a cancelled or interrupted run is trained again from the start in place");
  for (const char* table : {"metrics", "run_summary", "metric_rollups", "mixer_snapshots", "perf", "evals", "checkpoints", "lens_results"}) {
    const std::string sql = std::string("DELETE FROM ") + table + " WHERE run_id = ?1";
    StmtScope s(store.db().stmt(sql.c_str()));
    s->bind(1, run_id);
    s->run();
  }
  StmtScope s(store.db().stmt(
      "UPDATE runs SET status = 'queued', started_at = NULL, ended_at = NULL, error = NULL, pid = NULL, "
      "heartbeat_at = NULL, env_json = ?2 WHERE id = ?1"));
  s->bind(1, run_id).bind(2, env_json.empty() ? std::string("{}") : env_json);
  s->run();
  tx.commit();
}

}  // namespace pha::store
