// The registrations table (registration_store.h).
#include "store/registration_store.h"

#include "store/sqlite_db.h"

namespace pha::store {

using detail::StmtScope;
using detail::Transaction;

bool register_design(Store& store, const Registration& r) {
  Transaction tx(store.db(), Transaction::Kind::Write);
  {
    StmtScope have(store.db().stmt("SELECT 1 FROM registrations WHERE project = ?1"));
    have->bind(1, r.project);
    if (have->step()) return false;  // the transaction rolls back: nothing was written
  }
  std::int64_t before = 0, first = 0;
  {
    StmtScope runs(store.db().stmt(
        "SELECT count(*), coalesce(min(created_at), 0) FROM runs WHERE project = ?1 AND kind = 'train'"));
    runs->bind(1, r.project);
    if (runs->step()) before = runs->i64(0), first = runs->i64(1);
  }
  StmtScope ins(store.db().stmt(
      "INSERT INTO registrations(project, registered_at, design_json, design_hash, runs_before, first_run_at) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
  ins->bind(1, r.project).bind(2, r.registered_at).bind(3, r.design_json).bind(4, r.hash).bind(5, before).bind(6, first);
  ins->run();
  tx.commit();
  return true;
}

std::optional<Registration> registration(Store& store, const std::string& project) {
  StmtScope s(store.db().stmt(
      "SELECT project, design_json, design_hash, registered_at, runs_before, first_run_at FROM registrations "
      "WHERE project = ?1"));
  s->bind(1, project);
  if (!s->step()) return std::nullopt;
  Registration r;
  r.project = s->text(0);
  r.design_json = s->text(1);
  r.hash = s->text(2);
  r.registered_at = s->i64(3);
  r.runs_before = s->i64(4);
  r.first_run_at = s->i64(5);
  return r;
}

}  // namespace pha::store
