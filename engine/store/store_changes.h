// What changed in a run store since a view last read it, cheaply (docs/store.md, "Watching a
// store"). Every view of the window follows one store; the store is shared by design (`pha`
// processes, other windows), so a view cannot know what was written. Two steps:
//
//   auto v = store::data_version(store);      // PRAGMA data_version: changes when another
//                                              // connection (any process) committed
//   auto now = store::run_signatures(store);   // per run: what the run table and the views show
//   store::RunChanges c = store::diff_runs(before, now);   // added, removed, changed run ids
//
// A run's signature holds its name, status, notes, tags, group, creation and end time and
// how many evaluation rows it has, not its metric
// points: a run that is training changes its signature when it starts and ends, not at every
// step (the live view follows those on its own).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace pha::store {

struct RunSignature {
  std::int64_t id = 0;
  std::string name, status, notes, tags, group;  // tags: sorted, joined by ","
  std::int64_t created_at = 0, ended_at = 0;
  std::int64_t evals = 0;  // evaluation rows recorded (`pha eval` adds them to a finished run)
  bool operator==(const RunSignature& o) const {
    return id == o.id && name == o.name && status == o.status && notes == o.notes && tags == o.tags &&
           group == o.group && created_at == o.created_at && ended_at == o.ended_at &&
           evals == o.evals;
  }
};

struct RunChanges {
  std::vector<std::int64_t> added, removed, changed;  // run ids, ascending
  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

// SQLite's PRAGMA data_version of this connection: a number that changes whenever another
// connection (of this process or another) has committed to the database since the last call.
std::int64_t data_version(Store& store);
// Every run of the store (every project), by ascending id: one query.
std::vector<RunSignature> run_signatures(Store& store);
// The runs added, removed and changed from `before` to `after` (both by ascending id). SQLite
// may give a deleted run's id to the next new run: an id whose creation time differs is both
// removed and added.
RunChanges diff_runs(const std::vector<RunSignature>& before, const std::vector<RunSignature>& after);

}  // namespace pha::store
