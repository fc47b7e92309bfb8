// The decisions of architecture searches in the run store (table search_decisions, schema v6;
// docs/search.md). One row per (search, bracket, rung, trial) once that rung is decided. The
// runs a search trains are ordinary training runs; these rows say what the search made of them.
//
//   store::record_search_decisions(store, rows);        // one transaction, replacing the keys
//   auto rows = store::search_decisions(store, "quickstart", "pha-tiny");
#pragma once

#include <cstdint>
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

}  // namespace pha::store
