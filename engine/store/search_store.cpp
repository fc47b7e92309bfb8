// The search_decisions table (search_store.h) and what a run is to a search (search_run_roles).
#include "store/search_store.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "core/config_reader.h"
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

void clear_search_decisions_from(Store& store, const std::string& project, const std::string& search, int bracket,
                                 int rung) {
  StmtScope s(store.db().stmt(
      "DELETE FROM search_decisions WHERE project = ?1 AND search = ?2 AND bracket = ?3 AND rung >= ?4"));
  s->bind(1, project).bind(2, search).bind(3, bracket).bind(4, rung);
  s->run();
}

namespace {

// A rung run's group or name, "search:<variant>/[b<B>]t<N>@<budget>[,seed=S]", read back.
bool parse_rung_run_name(const std::string& name, SearchRunRole& role) {
  if (name.rfind("search:", 0) != 0) return false;
  const size_t slash = name.rfind('/');
  if (slash == std::string::npos || slash <= 7) return false;
  std::string rest = name.substr(slash + 1);
  if (const size_t comma = rest.find(','); comma != std::string::npos) rest.resize(comma);
  const size_t at = rest.find('@');
  if (at == std::string::npos) return false;
  const char* p = rest.c_str();
  char* end = nullptr;
  int bracket = -1;  // no "b<B>": one bracket (successive halving), its index in the rows
  if (*p == 'b') {
    bracket = static_cast<int>(std::strtol(p + 1, &end, 10));
    if (end == p + 1) return false;
    p = end;
  }
  if (*p != 't') return false;
  const int trial = static_cast<int>(std::strtol(p + 1, &end, 10));
  if (end == p + 1 || *end != '@') return false;
  const double resource = std::strtod(end + 1, &end);
  if (*end != '\0' || !std::isfinite(resource)) return false;
  role.search = name.substr(7, slash - 7);
  role.bracket = bracket;
  role.trial = trial;
  role.resource = resource;
  return true;
}

bool same_resource(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a)); }

std::string role_text(const SearchRunRole& r, bool brackets) {
  std::string t = "search " + r.search + ", ";
  if (brackets) t += "bracket " + std::to_string(r.bracket) + ", ";
  t += "trial " + std::to_string(r.trial);
  if (!r.label.empty()) t += " (" + r.label + ")";
  t += r.rung >= 0 ? ", rung " + std::to_string(r.rung) : ", budget " + core::format_number(r.resource);
  return t + ": " + (r.decision.empty() ? "not decided yet" : r.decision);
}

}  // namespace

std::map<std::int64_t, SearchRunRole> search_run_roles(Store& store, const std::string& project) {
  std::map<std::int64_t, SearchRunRole> out;
  const std::vector<SearchDecisionRow> rows = search_decisions(store, project);
  RunListQuery q;
  q.project = project;
  q.kind = RunKind::Train;
  const std::vector<RunListEntry> runs = store.list_runs(q);
  std::set<std::int64_t> stored;
  for (const RunListEntry& e : runs) stored.insert(e.run.id);
  for (const SearchDecisionRow& r : rows) {
    const nlohmann::json ids = nlohmann::json::parse(r.runs_json, nullptr, false);
    if (!ids.is_array()) continue;
    for (const auto& id : ids) {
      if (!id.is_number_integer() || !stored.count(id.get<std::int64_t>())) continue;  // deleted since
      SearchRunRole role{id.get<std::int64_t>(), r.search, r.bracket, r.trial, r.rung, r.resource, r.label, r.decision, ""};
      out[role.run_id] = role;
    }
  }
  for (const RunListEntry& e : runs) {
    if (out.count(e.run.id)) continue;
    SearchRunRole role;
    if (!parse_rung_run_name(e.run.group, role) && !parse_rung_run_name(e.run.name, role)) continue;
    role.run_id = e.run.id;
    for (const SearchDecisionRow& r : rows) {  // the rung of its budget, and its trial's decision there
      if (r.search != role.search || (role.bracket >= 0 && r.bracket != role.bracket) ||
          !same_resource(r.resource, role.resource))
        continue;
      role.bracket = r.bracket;
      role.rung = r.rung;
      if (r.trial == role.trial) role.label = r.label, role.decision = r.decision;
    }
    if (role.label.empty())  // its trial's label from any of its rows
      for (const SearchDecisionRow& r : rows)
        if (r.search == role.search && (role.bracket < 0 || r.bracket == role.bracket) && r.trial == role.trial)
          role.label = r.label;
    out[role.run_id] = role;
  }
  std::map<std::string, std::set<int>> brackets;  // per search: Hyperband's brackets are named
  for (const SearchDecisionRow& r : rows) brackets[r.search].insert(r.bracket);
  for (auto& [id, role] : out) {
    if (role.bracket >= 0) brackets[role.search].insert(role.bracket);
    else role.bracket = 0;
  }
  for (auto& [id, role] : out) role.text = role_text(role, brackets[role.search].size() > 1);
  return out;
}

}  // namespace pha::store
