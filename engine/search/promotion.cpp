// Promotion of a rung (promotion.h): failures first, then the ranking (mean under the metric's
// direction, or fronts and crowding), then the words.
#include "search/promotion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "analysis/stats.h"
#include "core/error.h"

namespace pha::search {

namespace {

std::string shown(double v) {  // 4 significant digits: for people, not for reading back
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

void summarise(Ranked& r, const TrialOutcome& o, size_t n_objectives) {
  for (size_t k = 0; k < n_objectives; ++k) {
    const std::vector<double>& v = o.values[k];
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    r.mean.push_back(mean);
    r.stdev.push_back(v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0);
  }
}

// Marks failed trials (flagged, missing or non-finite values, fewer replicas than the most).
std::vector<Ranked> check_outcomes(const std::vector<TrialOutcome>& outs, const std::vector<Objective>& objectives) {
  std::vector<Ranked> ranked(outs.size());
  size_t most = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    Ranked& r = ranked[i];
    const TrialOutcome& o = outs[i];
    r.trial = o.trial;
    r.failed = o.failed;
    r.reason = o.failed ? (o.reason.empty() ? "failed" : o.reason) : "";
    for (size_t k = 0; k < objectives.size() && !r.failed; ++k) {
      if (k >= o.values.size() || o.values[k].empty()) {
        r.failed = true, r.reason = "no value of " + objectives[k].metric;
        break;
      }
      for (size_t j = 0; j < o.values[k].size() && !r.failed; ++j)
        if (!std::isfinite(o.values[k][j]))
          r.failed = true, r.reason = objectives[k].metric + " is " + shown(o.values[k][j]) + " in replica " + std::to_string(j + 1);
    }
    if (!r.failed)
      for (size_t k = 0; k < objectives.size(); ++k) most = std::max(most, o.values[k].size());
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    Ranked& r = ranked[i];
    for (size_t k = 0; k < objectives.size() && !r.failed; ++k)
      if (outs[i].values[k].size() < most)
        r.failed = true, r.reason = "incomplete: " + std::to_string(outs[i].values[k].size()) + " of " + std::to_string(most) + " replicas";
    if (!r.failed) summarise(r, outs[i], objectives.size());
  }
  return ranked;
}

void rank_single(std::vector<Ranked>& ok, core::MetricGoal goal) {
  std::sort(ok.begin(), ok.end(), [goal](const Ranked& a, const Ranked& b) {
    if (core::metric_better(goal, a.mean[0], b.mean[0])) return true;
    if (core::metric_better(goal, b.mean[0], a.mean[0])) return false;
    return a.trial < b.trial;
  });
}

void rank_fronts(std::vector<Ranked>& ok, const std::vector<Objective>& objectives) {
  std::vector<std::vector<double>> points;
  for (const Ranked& r : ok) points.push_back(r.mean);
  const std::vector<int> fronts = nondominated_fronts(points, {objectives[0].goal, objectives[1].goal});
  const int n_fronts = fronts.empty() ? 0 : *std::max_element(fronts.begin(), fronts.end());
  for (int f = 1; f <= n_fronts; ++f) {
    std::vector<size_t> members;
    std::vector<std::vector<double>> front_points;
    for (size_t i = 0; i < ok.size(); ++i)
      if (fronts[i] == f) members.push_back(i), front_points.push_back(points[i]);
    const std::vector<double> crowding = crowding_distances(front_points);
    for (size_t m = 0; m < members.size(); ++m) ok[members[m]].front = f, ok[members[m]].crowding = crowding[m];
  }
  std::sort(ok.begin(), ok.end(), [](const Ranked& a, const Ranked& b) {
    if (a.front != b.front) return a.front < b.front;
    if (a.crowding != b.crowding) return a.crowding > b.crowding;
    return a.trial < b.trial;
  });
}

std::string reading(const Ranked& r, const std::vector<Objective>& objectives, size_t replicas) {
  std::string s;
  for (size_t k = 0; k < objectives.size(); ++k)
    s += std::string(k ? " and " : "") + (replicas > 1 ? "mean " : "") + objectives[k].metric + " " + shown(r.mean[k]);
  std::string extra;
  if (objectives.size() == 2) extra = "crowding " + shown(r.crowding) + ", ";
  if (objectives.size() == 1 && replicas > 1) extra = "sd " + shown(r.stdev[0]) + ", ";
  return s + " (" + extra + std::to_string(replicas) + (replicas == 1 ? " seed)" : " seeds)");
}

}  // namespace

std::vector<int> nondominated_fronts(const std::vector<std::vector<double>>& points, const std::vector<core::MetricGoal>& goals) {
  for (core::MetricGoal g : goals)
    if (g == core::MetricGoal::None) throw core::Error("search.objective", "a metric without a direction cannot be ranked");
  auto dominates = [&](const std::vector<double>& a, const std::vector<double>& b) {
    bool better = false;
    for (size_t d = 0; d < goals.size(); ++d) {
      if (core::metric_better(goals[d], b[d], a[d])) return false;
      better = better || core::metric_better(goals[d], a[d], b[d]);
    }
    return better;
  };
  const size_t n = points.size();
  std::vector<std::vector<size_t>> beats(n);  // Deb et al. 2002: whom each point dominates
  std::vector<int> beaten_by(n, 0), front(n, 0);
  std::vector<size_t> current;
  for (size_t p = 0; p < n; ++p) {
    for (size_t q = 0; q < n; ++q) {
      if (dominates(points[p], points[q])) beats[p].push_back(q);
      else if (dominates(points[q], points[p])) ++beaten_by[p];
    }
    if (beaten_by[p] == 0) front[p] = 1, current.push_back(p);
  }
  for (int f = 1; !current.empty(); ++f) {
    std::vector<size_t> next;
    for (size_t p : current)
      for (size_t q : beats[p])
        if (--beaten_by[q] == 0) front[q] = f + 1, next.push_back(q);
    current = std::move(next);
  }
  return front;
}

std::vector<double> crowding_distances(const std::vector<std::vector<double>>& points) {
  const size_t n = points.size();
  const double inf = std::numeric_limits<double>::infinity();
  if (n <= 2) return std::vector<double>(n, inf);
  std::vector<double> dist(n, 0.0);
  for (size_t d = 0; d < points[0].size(); ++d) {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return points[a][d] != points[b][d] ? points[a][d] < points[b][d] : a < b;
    });
    const double span = points[order.back()][d] - points[order.front()][d];
    if (!(span > 0)) continue;
    dist[order.front()] = dist[order.back()] = inf;
    for (size_t k = 1; k + 1 < n; ++k) dist[order[k]] += (points[order[k + 1]][d] - points[order[k - 1]][d]) / span;
  }
  return dist;
}

namespace {

std::string verdict(size_t i, size_t n_keep) {
  if (i < n_keep) return "promoted (top " + std::to_string(n_keep) + ")";
  return n_keep ? "stopped (top " + std::to_string(n_keep) + " promoted)" : std::string("stopped (none promoted)");
}

const TrialOutcome& outcome_of(const std::vector<TrialOutcome>& outcomes, int trial) {
  return *std::lower_bound(outcomes.begin(), outcomes.end(), trial,
                           [](const TrialOutcome& t, int x) { return t.trial < x; });
}

// The rung's pooled within-trial variance of the first objective (sum of squares over sum of
// n - 1), for the seed spread and the not-worse test.
void pool(Decision& d, const std::vector<Ranked>& ok, const std::vector<TrialOutcome>& outcomes) {
  double ss = 0;
  int df = 0;
  for (const Ranked& r : ok) {
    const std::vector<double>& v = outcome_of(outcomes, r.trial).values[0];
    for (double x : v) ss += (x - r.mean[0]) * (x - r.mean[0]);
    df += static_cast<int>(v.size()) - 1;
  }
  d.df = df;
  d.pooled_sd = df > 0 ? std::sqrt(ss / df) : std::nan("");
  d.t_critical = std::nan("");
}

// With the not-worse rule: the t statistic of trial `r` against the leader (positive: worse).
double t_against(const Decision& d, const Ranked& r, const Ranked& leader, core::MetricGoal goal, size_t n, size_t n_leader) {
  const double worse = goal == core::MetricGoal::Maximize ? leader.mean[0] - r.mean[0] : r.mean[0] - leader.mean[0];
  const double se = d.pooled_sd * std::sqrt(1.0 / static_cast<double>(n) + 1.0 / static_cast<double>(n_leader));
  if (!(se > 0)) return worse > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return worse / se;
}

Decision decide(std::vector<Ranked> ok, std::vector<Ranked> failed, const std::vector<TrialOutcome>& outcomes,
                const std::vector<Objective>& objectives, int keep, const PromotionRule& rule) {
  Decision d;
  const size_t n_keep = std::min(ok.size(), static_cast<size_t>(keep));
  int n_fronts = 0;
  for (const Ranked& r : ok) n_fronts = std::max(n_fronts, r.front);
  pool(d, ok, outcomes);
  const bool test = rule.not_worse && objectives.size() == 1 && d.df > 0 && n_keep > 0 && !ok.empty();
  if (test) d.t_critical = analysis::student_t_quantile(1.0 - rule.alpha, d.df);
  const auto capped = static_cast<size_t>(std::floor(rule.max_factor * static_cast<double>(n_keep) + 1e-9));
  const size_t cap = rule.max_factor > 0 ? std::max(n_keep, capped) : ok.size();
  size_t n_go = 0;
  for (size_t i = 0; i < ok.size(); ++i) {
    const Ranked& r = ok[i];
    const size_t n = outcome_of(outcomes, r.trial).values[0].size();
    std::string why = "rank " + std::to_string(i + 1) + " of " + std::to_string(ok.size());
    if (objectives.size() == 2) why += ", front " + std::to_string(r.front) + " of " + std::to_string(n_fronts);
    std::string v = verdict(i, n_keep);
    bool go = i < n_keep;
    if (!go && test) {
      const double t = t_against(d, r, ok[0], objectives[0].goal, n, outcome_of(outcomes, ok[0].trial).values[0].size());
      if (t <= d.t_critical && n_go >= cap) {
        v += " (not significantly worse than t" + std::to_string(ok[0].trial) + ": t " + shown(t) + " <= " +
             shown(d.t_critical) + ", but at most " + std::to_string(cap) + " go on)";
      } else if (t <= d.t_critical) {
        go = true;
        d.kept_close.push_back(r.trial);
        v = "promoted (not significantly worse than t" + std::to_string(ok[0].trial) + ": t " + shown(t) + " <= " +
            shown(d.t_critical) + ", pooled sd " + shown(d.pooled_sd) + ", df " + std::to_string(d.df) + ")";
      } else {
        v += " (significantly worse than t" + std::to_string(ok[0].trial) + ": t " + shown(t) + " > " +
             shown(d.t_critical) + ")";
      }
    }
    d.why[r.trial] = why + " by " + reading(r, objectives, n) + ": " + v;
    (go ? d.promoted : d.stopped).push_back(r.trial);
    n_go += go ? 1 : 0;
  }
  for (const Ranked& r : failed) d.why[r.trial] = "failed: " + r.reason, d.stopped.push_back(r.trial);
  d.ranking = std::move(ok);
  d.ranking.insert(d.ranking.end(), failed.begin(), failed.end());
  return d;
}

}  // namespace

Decision promote(std::vector<TrialOutcome> outcomes, const std::vector<Objective>& objectives, int keep,
                 const PromotionRule& rule) {
  if (objectives.empty() || objectives.size() > 2)
    throw core::Error("search.objective", std::to_string(objectives.size()) + " objectives; allowed: 1 or 2");
  if (rule.not_worse && !(rule.alpha > 0 && rule.alpha < 1))
    throw core::Error("search.promotion.alpha", shown(rule.alpha) + " is out of range; allowed: 0 < alpha < 1");
  if (keep < 0) throw core::Error("search.promotion", "keep " + std::to_string(keep) + " is out of range; allowed: 0 or more");
  std::sort(outcomes.begin(), outcomes.end(), [](const TrialOutcome& a, const TrialOutcome& b) { return a.trial < b.trial; });
  for (size_t i = 1; i < outcomes.size(); ++i)
    if (outcomes[i].trial == outcomes[i - 1].trial)
      throw core::Error("search.promotion", "trial " + std::to_string(outcomes[i].trial) + " is reported twice");
  std::vector<Ranked> ok, failed;
  for (Ranked& r : check_outcomes(outcomes, objectives)) (r.failed ? failed : ok).push_back(std::move(r));
  if (objectives.size() == 1) rank_single(ok, objectives[0].goal);
  else rank_fronts(ok, objectives);
  return decide(std::move(ok), std::move(failed), outcomes, objectives, keep, rule);
}

}  // namespace pha::search
