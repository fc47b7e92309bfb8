// The search's report (search_job.h, search_report): the leaderboard per base variant, in
// markdown or JSON, from a SearchSummary.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/metric_table.h"
#include "search_runner/search_job.h"

namespace pha::search_runner {

using json = nlohmann::json;

namespace {

std::string mean_text(const SearchTrialState& t, size_t k) {
  if (k >= t.mean.size() || !std::isfinite(t.mean[k])) return "-";
  std::string s = core::format_number(std::round(t.mean[k] * 1e4) / 1e4);
  if (k < t.stdev.size() && t.stdev[k] > 0) s += " ± " + core::format_number(std::round(t.stdev[k] * 1e4) / 1e4);
  return s;
}

// One search's trials in the leaderboard's order (leaderboard_before, search_job.h).
std::vector<const SearchTrialState*> leaderboard(const SearchSummary& s, const std::string& search) {
  std::vector<const SearchTrialState*> out;
  for (const auto& t : s.trials)
    if (t.search == search) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(),
                   [&](const SearchTrialState* a, const SearchTrialState* b) { return leaderboard_before(s, *a, *b); });
  return out;
}

}  // namespace

bool leaderboard_before(const SearchSummary& s, const SearchTrialState& a, const SearchTrialState& b) {
  const auto order = [](const std::string& state) {
    if (state == "finished") return 0;
    if (state == "promoted" || state == "trained" || state == "running" || state == "cancelled" ||
        state == "interrupted" || state == "pending")
      return 1;
    if (state == "stopped") return 2;
    return 3;
  };
  const core::MetricGoal goal = s.objectives.empty() ? core::MetricGoal::Minimize : core::metric_goal(s.objectives.front());
  if (order(a.state) != order(b.state)) return order(a.state) < order(b.state);
  if (a.rung != b.rung) return a.rung > b.rung;
  const double x = a.mean.empty() ? NAN : a.mean[0], y = b.mean.empty() ? NAN : b.mean[0];
  if (std::isfinite(x) != std::isfinite(y)) return std::isfinite(x);
  if (std::isfinite(x) && x != y) return goal == core::MetricGoal::Maximize ? x > y : x < y;
  return std::tie(a.bracket, a.trial) < std::tie(b.bracket, b.trial);
}

std::string search_report(const SearchSummary& s, const std::string& format) {
  if (format == "json") {
    json j = {{"project", s.project}, {"objectives", s.objectives}, {"resource", s.resource},
              {"complete", s.complete}, {"steps_total", s.steps_total}, {"searches", json::array()}};
    for (const auto& name : s.searches) {
      json trials = json::array();
      for (const SearchTrialState* t : leaderboard(s, name)) {
        json history = json::array();  // the rung chart: every rung the trial reached
        for (const SearchRungPoint& p : t->history)
          history.push_back({{"rung", p.rung}, {"resource", p.resource}, {"state", p.state}, {"mean", p.mean},
                             {"stdev", p.stdev}, {"runs", p.run_ids}});
        trials.push_back({{"bracket", t->bracket}, {"trial", t->trial}, {"label", t->label}, {"values", t->values},
                          {"rung", t->rung}, {"resource", t->resource}, {"state", t->state}, {"mean", t->mean},
                          {"stdev", t->stdev}, {"why", t->why}, {"runs", t->run_ids}, {"params", t->params},
                          {"history", history}});
      }
      j["searches"].push_back({{"variant", name}, {"leaderboard", trials}});
    }
    return j.dump(2) + "\n";
  }
  if (format != "md") throw core::Error("--format", "\"" + format + "\" is not allowed; allowed: \"md\", \"json\"");
  std::ostringstream o;
  o << "# Search of " << s.project << "\n\n";
  o << (s.complete ? "Complete." : "Not complete: rerun `pha search` to continue.") << " Objective"
    << (s.objectives.size() > 1 ? "s" : "") << ": ";
  for (size_t k = 0; k < s.objectives.size(); ++k)
    o << (k ? ", " : "") << "`" << s.objectives[k] << "` ("
      << (core::higher_is_better(s.objectives[k]) ? "higher" : "lower") << " is better)";
  o << "; budget in " << s.resource << "; " << core::format_number(s.steps_total)
    << " optimizer steps over every rung run (a rung run that continues the previous rung's stable phase counted by "
       "its extra steps).\n";
  for (const auto& name : s.searches) {
    o << "\n## " << name << "\n\n| rank | trial | settings | rung reached | " << s.resource << " |";
    for (const auto& m : s.objectives) o << " " << m << " |";
    o << " params | state | why |\n|---|---|---|---|---|";
    for (size_t k = 0; k < s.objectives.size(); ++k) o << "---|";
    o << "---|---|---|\n";
    int rank = 0;
    std::set<int> brackets;
    for (const auto& t : s.trials)
      if (t.search == name) brackets.insert(t.bracket);
    for (const SearchTrialState* t : leaderboard(s, name)) {
      o << "| " << ++rank << " | " << (brackets.size() > 1 ? "b" + std::to_string(t->bracket) + ":" : "") << "t" << t->trial
        << " | " << t->label << " | " << t->rung << " | " << core::format_number(t->resource) << " |";
      for (size_t k = 0; k < s.objectives.size(); ++k) o << " " << mean_text(*t, k) << " |";
      o << " " << t->params << " | " << t->state << " | " << t->why << " |\n";
    }
  }
  return o.str();
}

}  // namespace pha::search_runner
