// The search runner's use of its recorded decisions (search_internal.h): when a rung's rows in
// the store's search_decisions may stand in for its runs, so that deleting a run of a decided
// rung (a stopped trial's, from the run table) neither un-decides the search nor retrains it.
#include "search_runner/internal/search_internal.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "project/project_queue.h"
#include "store/search_store.h"

namespace pha::search_runner::detail {

namespace {

bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(a));
}

// [[3.21, 3.25], [1286172]]: numbers per objective (null: NaN); false when not of that shape.
bool read_values(const std::string& text, size_t objectives, std::vector<std::vector<double>>& out) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_array() || j.size() != objectives) return false;
  out.clear();
  for (const json& per : j) {
    if (!per.is_array()) return false;
    out.emplace_back();
    for (const json& v : per) {
      if (!v.is_number() && !v.is_null()) return false;
      out.back().push_back(v.is_number() ? v.get<double>() : std::nan(""));
    }
  }
  return true;
}

bool read_ids(const std::string& text, std::vector<std::int64_t>& out) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_array()) return false;
  for (const json& v : j) {
    if (!v.is_number_integer()) return false;
    out.push_back(v.get<std::int64_t>());
  }
  return true;
}

}  // namespace

search::Ranked measured(int trial, const std::vector<std::vector<double>>& values) {
  search::Ranked r;
  r.trial = trial;
  for (const std::vector<double>& v : values) {
    if (v.empty()) {  // not measured
      r.mean.clear();
      r.stdev.clear();
      return r;
    }
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    r.mean.push_back(mean);
    r.stdev.push_back(v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0);
  }
  return r;
}

std::optional<std::vector<RecordedTrial>> recorded_rung(store::Store& st, const Setup& s, const OneSearch& one,
                                                        const BracketSetup& bs, int rung, const std::vector<int>& alive,
                                                        const std::vector<RungRun>& runs,
                                                        const std::vector<RunOutcome>& outcomes) {
  const bool last = rung + 1 == static_cast<int>(bs.bracket.rungs.size());
  const double resource = bs.bracket.rungs[static_cast<size_t>(rung)].resource;
  std::vector<RecordedTrial> out;
  std::vector<std::vector<std::int64_t>> recorded_ids;
  for (const store::SearchDecisionRow& row : store::search_decisions(st, s.project.name, one.name)) {
    if (row.bracket != bs.bracket.index || row.rung != rung) continue;
    if (std::find(alive.begin(), alive.end(), row.trial) == alive.end()) return std::nullopt;
    const TrialSetup& ts = bs.trials[static_cast<size_t>(row.trial)];
    const bool decided = row.decision == "failed" || (last ? row.decision == "finished"
                                                           : row.decision == "promoted" || row.decision == "stopped");
    if (row.label != ts.trial.label || std::abs(row.resource - resource) > 1e-9 * std::max(1.0, resource) || !decided)
      return std::nullopt;
    RecordedTrial r{row.trial, row.decision, row.why, {}, {}};
    std::vector<std::int64_t> ids;
    if (!read_values(row.values_json, s.spec.objectives.size(), r.values) || !read_ids(row.runs_json, ids))
      return std::nullopt;
    for (std::int64_t id : ids) {  // a stored run it names must be one of the trial's rung runs
      const auto run = id > 0 ? st.get_run(id) : std::nullopt;
      if (!run) continue;
      const json cfg = json::parse(run->config_json, nullptr, false);
      const bool ours = !cfg.is_discarded() && std::any_of(runs.begin(), runs.end(), [&](const RungRun& rr) {
        return rr.id.trial == row.trial && project::same_run_config(cfg, rr.plan.config);
      });
      if (!ours) return std::nullopt;
      r.run_ids.push_back(id);
    }
    recorded_ids.push_back(std::move(ids));
    out.push_back(std::move(r));
  }
  if (out.size() != alive.size()) return std::nullopt;
  for (size_t i = 0; i < runs.size(); ++i) {  // the runs still in the store say what the rows say
    const RunOutcome& o = outcomes[i];
    if (!o.done) continue;
    const auto at = std::find_if(out.begin(), out.end(), [&](const RecordedTrial& r) { return r.trial == runs[i].id.trial; });
    const std::vector<std::int64_t>& ids = recorded_ids[static_cast<size_t>(at - out.begin())];
    if (std::find(ids.begin(), ids.end(), o.run_id) == ids.end()) return std::nullopt;
    for (size_t k = 0; k < o.values.size() && !o.failed; ++k) {
      const std::vector<double>& v = at->values[k];
      if (std::none_of(v.begin(), v.end(), [&](double x) { return same_value(x, o.values[k]); })) return std::nullopt;
    }
  }
  return out;
}

}  // namespace pha::search_runner::detail
