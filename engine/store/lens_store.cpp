// The lens_results table (lens_store.h).
#include "store/lens_store.h"

#include <set>

#include "core/error.h"
#include "store/sqlite_db.h"

namespace pha::store {

using detail::StmtScope;
using detail::Transaction;

void record_lens(Store& store, std::int64_t run_id, const std::vector<LensRow>& rows, bool replace_kinds) {
  Transaction tx(store.db(), Transaction::Kind::Write);
  {
    StmtScope s(store.db().stmt("SELECT 1 FROM runs WHERE id = ?1"));
    s->bind(1, run_id);
    if (!s->step()) throw core::Error(store.path(), "no run with id " + std::to_string(run_id));
  }
  if (replace_kinds) {
    std::set<std::string> kinds;
    for (const LensRow& r : rows) kinds.insert(r.kind);
    for (const std::string& k : kinds) {
      StmtScope d(store.db().stmt("DELETE FROM lens_results WHERE run_id = ?1 AND kind = ?2"));
      d->bind(1, run_id).bind(2, k);
      d->run();
    }
  }
  for (const LensRow& r : rows) {
    StmtScope s(store.db().stmt(
        "INSERT OR REPLACE INTO lens_results(run_id, kind, layer, branch, class, step, value, tokens, source, "
        "measured_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
    s->bind(1, run_id).bind(2, r.kind).bind(3, static_cast<std::int64_t>(r.layer)).bind(4, r.branch).bind(5, r.cls);
    s->bind(6, r.step).bind(7, r.value).bind(8, r.tokens).bind(9, r.source).bind(10, r.measured_at);
    s->run();
  }
  tx.commit();
}

std::vector<LensRow> read_lens(Store& store, std::int64_t run_id) {
  std::vector<LensRow> out;
  StmtScope s(store.db().stmt(
      "SELECT kind, layer, branch, class, step, value, tokens, source, measured_at FROM lens_results WHERE run_id = ?1 "
      "ORDER BY kind, class, layer, CASE branch WHEN 'gss' THEN 0 WHEN 'attn' THEN 1 WHEN 'ffn' THEN 2 ELSE 3 END"));
  s->bind(1, run_id);
  while (s->step()) {
    LensRow r;
    r.kind = s->text(0);
    r.layer = static_cast<int>(s->i64(1));
    r.branch = s->text(2);
    r.cls = s->text(3);
    r.step = s->i64(4);
    r.value = s->f64(5);
    r.tokens = s->i64(6);
    r.source = s->text(7);
    r.measured_at = s->i64(8);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace pha::store
