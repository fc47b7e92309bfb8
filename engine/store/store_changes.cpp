#include "store/store_changes.h"

#include "store/sqlite_db.h"

namespace pha::store {

using detail::StmtScope;

std::int64_t data_version(Store& store) {
  StmtScope s(store.db().stmt("PRAGMA data_version"));
  return s->step() ? s->i64(0) : 0;
}

std::vector<RunSignature> run_signatures(Store& store) {
  // Tags sorted inside the group_concat by a sorted subquery (SQLite concatenates in the order
  // the rows come).
  StmtScope s(store.db().stmt(
      "SELECT r.id, r.name, r.status, r.notes, r.run_group, r.ended_at, r.created_at, "
      "(SELECT group_concat(tag, ',') FROM (SELECT tag FROM run_tags t WHERE t.run_id = r.id ORDER BY tag)), "
      "(SELECT count(*) FROM evals e WHERE e.run_id = r.id) "
      "FROM runs r ORDER BY r.id"));
  std::vector<RunSignature> out;
  while (s->step()) {
    RunSignature r;
    r.id = s->i64(0);
    r.name = s->text(1);
    r.status = s->text(2);
    r.notes = s->text(3);
    r.group = s->text(4);
    r.ended_at = s->i64(5);
    r.created_at = s->i64(6);
    r.tags = s->text(7);
    r.evals = s->i64(8);
    out.push_back(std::move(r));
  }
  return out;
}

RunChanges diff_runs(const std::vector<RunSignature>& before, const std::vector<RunSignature>& after) {
  RunChanges c;
  size_t i = 0, j = 0;
  while (i < before.size() || j < after.size()) {
    if (j == after.size() || (i < before.size() && before[i].id < after[j].id)) {
      c.removed.push_back(before[i++].id);
    } else if (i == before.size() || after[j].id < before[i].id) {
      c.added.push_back(after[j++].id);
    } else {
      if (before[i].created_at != after[j].created_at) {  // the id of a deleted run, reused
        c.removed.push_back(before[i].id);
        c.added.push_back(after[j].id);
      } else if (!(before[i] == after[j])) {
        c.changed.push_back(after[j].id);
      }
      ++i, ++j;
    }
  }
  return c;
}

}  // namespace pha::store
