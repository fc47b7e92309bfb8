// The decisions of architecture searches in the run store (table search_decisions, schema v6;
// docs/search.md). One row per (search, bracket, rung, trial) once that rung is decided. The
// runs a search trains are ordinary training runs; these rows say what the search made of them.
//
//   store::record_search_decisions(store, rows);        // one transaction, replacing the keys
//   auto rows = store::search_decisions(store, "quickstart", "pha-tiny");
//   auto roles = store::search_run_roles(store, "quickstart");  // run id -> "search pha-tiny, trial 3 ..."
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "store/store.h"

namespace pha::store {

struct SearchDecisionRow {
  std::string project;
  std::string search;       // which search of the project: its base variant ("pha-tiny")
  int bracket = 0, rung = 0, trial = 0;
  double resource = 0.0;    // the rung's budget (steps, tokens or FLOPs)
  std::string label;        // the trial's values, "lr=0.001,layers=gss-attn"
  std::string decision;     // "promoted", "stopped", "failed"
  std::string why;          // for people
  std::string values_json;  // objective values per seed: [[3.21, 3.25], [1286172, 1286172]]
  std::string runs_json;    // the run ids that measured the rung: [12, 13]
  std::int64_t decided_at = 0;  // ms since the epoch
};

// Inserts or replaces every row (by its key) in one write transaction.
void record_search_decisions(Store& store, const std::vector<SearchDecisionRow>& rows);
// The rows of one search (every search of the project when `search` is empty), ordered by
// search, bracket, rung, trial.
std::vector<SearchDecisionRow> search_decisions(Store& store, const std::string& project, const std::string& search = "");
// Forgets one search's rows (a search whose section changed is decided afresh).
void clear_search_decisions(Store& store, const std::string& project, const std::string& search);
// Forgets the rows of one bracket from `rung` on: the search runner calls it when it decides a
// rung afresh (its runs all in the store) and the decision differs from the recorded one (the
// section changed), so the later rungs' rows, decided from the old ones, go too.
void clear_search_decisions_from(Store& store, const std::string& project, const std::string& search, int bracket,
                                 int rung);

// What a run of the store is to a search of its project: the trial and rung it measured and
// what became of the trial there.
struct SearchRunRole {
  std::int64_t run_id = 0;
  std::string search;       // the base variant ("pha-tiny")
  int bracket = 0, trial = 0;  // bracket: as the rows number it (0 when no row or name says)
  int rung = -1;            // -1: not known (no decision row names its budget yet)
  double resource = 0.0;    // the rung's budget
  std::string label;        // the trial's values ("lr=0.001"); "" when no decision row names it
  std::string decision;     // the rung's decision ("promoted", "stopped", "failed", "finished");
                            // "" when the rung is not decided yet
  std::string text;         // for people: "search pha-tiny, trial 3 (lr=0.001), rung 0: stopped"
};

// Every run of `project` that belongs to a search trial, by run id: the runs the decision rows
// name (their runs_json; runs deleted since are left out), and the rung runs no row names yet (a rung still training, or rows
// of a search decided afresh) by the rung runs' naming convention: group (kept when a run is
// renamed) or name "search:<variant>/[b<B>]t<N>@<budget>[,seed=S]". For the run table's tooltip
// and the delete dialog ("run 12 is search pha-tiny, trial 3 (lr=0.001), rung 0: stopped").
// Deleting such a run does not change the search's decisions (docs/search.md, "Crash safety
// and resumption"); texts:
//   "search pha-tiny, trial 3 (lr=0.001), rung 0: stopped"
//   "search pha-tiny, bracket 1, trial 0 (lr=0.01), rung 2: finished"
//   "search pha-tiny, trial 5, budget 45: not decided yet"
std::map<std::int64_t, SearchRunRole> search_run_roles(Store& store, const std::string& project);

}  // namespace pha::store
