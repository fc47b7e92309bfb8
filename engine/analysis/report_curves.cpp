// Claims read along training: a replica's learning curve on steps, tokens or training FLOPs, its
// value at a budget, the two sides' mean curves and where they cross; and the training budget
// behind a claim row (tokens per replica, tokens per parameter).
#include <algorithm>
#include <cmath>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "analysis/scaling_fit.h"
#include "store/store.h"

namespace pha::analysis::detail {

namespace {

// x of a metric point on a budget axis; NaN when the axis cannot be computed for the run.
double budget_x(const store::MetricPoint& p, const std::string& axis, double flops_per_token) {
  if (axis == "steps") return static_cast<double>(p.step);
  if (axis == "tokens") return static_cast<double>(p.tokens);
  return flops_per_token > 0 ? static_cast<double>(p.tokens) * flops_per_token : kNoValue;
}

// The mean learning curve of a group's replicas: at each x of its first replica's curve, the mean
// of every replica's interpolated value (points where a replica has none are left out).
Curve mean_curve(store::Store& store, const GroupReport& g, const std::string& key, const std::string& axis) {
  std::vector<Curve> curves;
  for (const auto& r : g.replicas) curves.push_back(curve_of(store, r.run_id, key, axis, g.train_flops_per_token));
  Curve out;
  if (curves.empty()) return out;
  for (const auto& [x, y0] : curves.front()) {
    double sum = 0;
    bool all = true;
    for (const auto& c : curves) {
      const double v = value_at(c, x);
      all = all && std::isfinite(v);
      sum += v;
    }
    if (all) out.emplace_back(x, sum / static_cast<double>(curves.size()));
  }
  return out;
}

// The tokens a group's replicas had trained at a budget: the budget itself on tokens, budget /
// FLOPs per token on FLOPs, on steps the tokens of the replicas' train/loss points there (mean
// over the replicas); never more than the replicas' last point.
double tokens_at(const Claim& c, const GroupReport& g, store::Store& store, double budget) {
  double tokens = kNoValue;
  if (c.budget_axis == "tokens") tokens = budget;
  if (c.budget_axis == "flops" && g.train_flops_per_token > 0) tokens = budget / g.train_flops_per_token;
  if (c.budget_axis == "steps") {
    double sum = 0.0;
    int n = 0;
    for (const auto& r : g.replicas) {
      Curve steps;  // step -> tokens
      for (const auto& p : store.read_metric_full(r.run_id, "train/loss"))
        if (steps.empty() || static_cast<double>(p.step) > steps.back().first)
          steps.emplace_back(static_cast<double>(p.step), static_cast<double>(p.tokens));
      if (steps.empty()) continue;
      const double t = value_at(steps, std::min(budget, steps.back().first));
      if (std::isfinite(t)) sum += t, ++n;
    }
    if (n > 0) tokens = sum / n;
  }
  return std::isfinite(g.tokens) ? std::min(tokens, g.tokens) : tokens;
}

}  // namespace

Curve curve_of(store::Store& store, int64_t run_id, const std::string& key, const std::string& axis,
               double flops_per_token) {
  Curve out;
  for (const auto& p : store.read_metric_full(run_id, key)) {
    const double x = budget_x(p, axis, flops_per_token);
    if (!std::isfinite(x) || !std::isfinite(p.value)) continue;
    if (!out.empty() && x <= out.back().first) {
      out.back().second = p.value;  // a later evaluation at the same x (the final one) replaces it
      continue;
    }
    out.emplace_back(x, p.value);
  }
  return out;
}

double value_at(const Curve& c, double x) {
  if (c.empty() || x < c.front().first || x > c.back().first) return kNoValue;
  for (size_t i = 1; i < c.size(); ++i)
    if (x <= c[i].first) {
      const auto& [x0, y0] = c[i - 1];
      const auto& [x1, y1] = c[i];
      return x1 == x0 ? y1 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
  return c.back().second;
}

void add_crossings(const Claim& c, const GroupReport& a, const GroupReport& b, store::Store& store, ClaimReport& out) {
  for (const char* axis : {"tokens", "flops"}) {
    const auto ca = mean_curve(store, a, c.metric.key, axis), cb = mean_curve(store, b, c.metric.key, axis);
    CurveCrossing x;
    x.label = a.group + " vs " + b.group;
    x.axis = axis;
    if (ca.size() < 2 || cb.size() < 2) continue;
    x.lo = std::max(ca.front().first, cb.front().first);
    x.hi = std::min(ca.back().first, cb.back().first);
    if (!(x.lo < x.hi)) continue;
    x.at = curve_crossings(ca, cb);
    const double ea = value_at(ca, x.hi), eb = value_at(cb, x.hi);
    const bool a_better = c.kind == ClaimKind::LowerIsBetter ? ea < eb : ea > eb;
    x.better_at_end = ea == eb ? "neither" : a_better ? a.group : b.group;
    out.crossings.push_back(std::move(x));
  }
}

RowBudget row_budget(const Claim& c, const std::vector<const GroupReport*>& groups, store::Store& store, double budget) {
  RowBudget out;
  for (const GroupReport* g : groups) {
    const double tokens = std::isnan(budget) ? g->tokens : tokens_at(c, *g, store, budget);
    if (!std::isfinite(tokens)) continue;
    if (!std::isfinite(out.tokens) || tokens < out.tokens) out.tokens = tokens;
    if (g->n_params <= 0) continue;
    const double per_param = tokens / static_cast<double>(g->n_params);
    if (!std::isfinite(out.tokens_per_param) || per_param < out.tokens_per_param) out.tokens_per_param = per_param;
  }
  return out;
}

}  // namespace pha::analysis::detail
