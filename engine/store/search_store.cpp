#include "store/search_store.h"

#include "store/sqlite_db.h"

namespace pha::store {

using detail::StmtScope;
using detail::Transaction;

void record_search_decisions(Store& store, const std::vector<SearchDecisionRow>& rows) {
  Transaction tx(store.db(), Transaction::Kind::Write);
  for (const SearchDecisionRow& r : rows) {
    StmtScope s(store.db().stmt(
        "INSERT OR REPLACE INTO search_decisions(project, search, bracket, rung, trial, resource, label, decision, why, "
        "values_json, runs_json, decided_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
    s->bind(1, r.project).bind(2, r.search).bind(3, r.bracket).bind(4, r.rung).bind(5, r.trial).bind(6, r.resource);
    s->bind(7, r.label).bind(8, r.decision).bind(9, r.why).bind(10, r.values_json).bind(11, r.runs_json);
    s->bind(12, r.decided_at);
    s->run();
  }
  tx.commit();
}

std::vector<SearchDecisionRow> search_decisions(Store& store, const std::string& project, const std::string& search) {
  StmtScope s(store.db().stmt(
      "SELECT project, search, bracket, rung, trial, resource, label, decision, why, values_json, runs_json, decided_at "
      "FROM search_decisions WHERE project = ?1 AND (?2 = '' OR search = ?2) ORDER BY search, bracket, rung, trial"));
  s->bind(1, project).bind(2, search);
  std::vector<SearchDecisionRow> rows;
  while (s->step()) {
    SearchDecisionRow r;
    r.project = s->text(0);
    r.search = s->text(1);
    r.bracket = static_cast<int>(s->i64(2));
    r.rung = static_cast<int>(s->i64(3));
    r.trial = static_cast<int>(s->i64(4));
    r.resource = s->f64(5);
    r.label = s->text(6);
    r.decision = s->text(7);
    r.why = s->text(8);
    r.values_json = s->text(9);
    r.runs_json = s->text(10);
    r.decided_at = s->i64(11);
    rows.push_back(std::move(r));
  }
  return rows;
}

void clear_search_decisions(Store& store, const std::string& project, const std::string& search) {
  StmtScope s(store.db().stmt("DELETE FROM search_decisions WHERE project = ?1 AND search = ?2"));
  s->bind(1, project).bind(2, search);
  s->run();
}

}  // namespace pha::store
