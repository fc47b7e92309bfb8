// Managing a store's runs beyond what Store offers: the rule for tags, and deleting runs with
// their files (docs/store.md, "Deleting runs"): every row of the runs in one write transaction,
// their checkpoint files only after it committed, so a crash leaves each run either whole (rows
// and files) or gone (no row; at worst files left over).
//
//   auto done = store::delete_runs(store, {12, 13});   // throws, deleting nothing, on a bad id
//   for (const auto& f : done.failures) warn(f);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace pha::store {

// A tag is one word: not empty, no whitespace, no comma (a list of tags is written "a,b").
// Throws core::Error naming `tag` otherwise. Store::add_tag applies it.
void check_tag(const std::string& tag);

struct DeleteOptions {
  bool keep_files = false;  // leave the checkpoint files on disk (their rows still go)
};

struct DeletedRuns {
  std::vector<RunInfo> runs;          // the runs as they were, in the order asked
  std::vector<std::string> files;     // checkpoint files no remaining run refers to
  std::vector<std::string> removed;   // of those, the files (and emptied run folders) removed
  std::vector<std::string> failures;  // "path: why" for each that could not be removed
};

// Deletes the runs and everything that references them (metrics, summaries, rollups, mixer
// snapshots, perf, evals, checkpoint rows, tags) in one BEGIN IMMEDIATE transaction. Inside it,
// before anything is deleted, every id is checked: an id with no run, or a run whose status is
// running (its writer is alive: Store::open already marked dead writers' runs interrupted),
// throws core::Error naming it and nothing is deleted. After the commit, unless keep_files, the
// runs' checkpoint files are removed (a file another run's checkpoint row names is kept), and
// then their `run-<id>` folders when that left them empty. A file that cannot be removed is a
// failure in the result, not an exception: the runs are already gone.
DeletedRuns delete_runs(Store& store, const std::vector<std::int64_t>& ids, const DeleteOptions& options = {});

// Empties a run that ended before it wrote a checkpoint (a search rung run cancelled at its
// first step, or killed before its first checkpoint) so that it can be trained again from the
// start under the same id: its metrics, summaries, rollups, mixer snapshots, perf, evals and
// checkpoint rows go, its status is queued again and its provenance is `env_json`; its name,
// config, group, seed, tags and notes stay. One write transaction. Throws core::Error (nothing
// changed) for a missing run or one that is running, finished, failed or diverged: only a
// cancelled or interrupted run is restarted.
void restart_run(Store& store, std::int64_t run_id, const std::string& env_json);

// The same check without deleting (a caller that asks before it deletes): the runs, or the
// core::Error delete_runs would throw. delete_runs checks again inside its transaction.
std::vector<RunInfo> check_deletable(Store& store, const std::vector<std::int64_t>& ids);

}  // namespace pha::store
