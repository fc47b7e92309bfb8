// The identifiability checks of a scaling-law fit: design, bounds, interval widths and
// leave-one-out refits. Rules: the header.
#include "analysis/internal/scaling_identify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/internal/report_format.h"

namespace pha::analysis {

namespace {

// The points at x (measured) and the others (the refit's data).
HeldOut hold_out(const std::vector<ScalingPoint>& points, double x, const FitOptions& options, double tolerance) {
  HeldOut h;
  h.x = x;
  std::vector<ScalingPoint> rest;
  std::vector<double> ys;
  for (const ScalingPoint& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    if (p.x == x)
      ys.push_back(p.y);
    else
      rest.push_back(p);
  }
  h.n_points = ys.size();
  double sum = 0.0;
  for (double y : ys) sum += y;
  h.measured = sum / static_cast<double>(ys.size());
  if (ys.size() >= 2) {
    double ss = 0.0;
    for (double y : ys) ss += (y - h.measured) * (y - h.measured);
    h.measured_sd = std::sqrt(ss / static_cast<double>(ys.size() - 1));
  }
  FitOptions o = options;
  o.band_x = {x};
  const PowerLawFit f = fit_power_law(rest, o);
  if (!f.ok) {
    h.message = "the refit without x = " + sci(x) + " failed: " + f.message;
    return h;
  }
  h.ok = true;
  h.refit = f.params();
  h.predicted = f.at(x);
  if (!f.band.empty()) h.predicted_ci = {f.band[0].low, f.band[0].high};
  h.rel_error = (h.predicted - h.measured) / h.measured;
  h.within = std::fabs(h.rel_error) <= tolerance;
  return h;
}

}  // namespace

std::string percent_text(double rel) {
  if (!std::isfinite(rel)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * rel);
  return buf;
}

Identifiability identify_fit(const std::vector<ScalingPoint>& points, const PowerLawFit& fit, const FitOptions& options,
                             const IdentifyOptions& limits) {
  Identifiability id;
  id.tolerance = limits.tolerance;
  id.level = fit.level;
  if (!fit.ok) return id;
  id.checked = true;
  std::vector<double> xs;
  for (const ScalingPoint& p : points)
    if (std::isfinite(p.x) && std::isfinite(p.y)) xs.push_back(p.x);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  id.n_sizes = xs.size();
  id.x_min = xs.front();
  id.x_max = xs.back();
  id.decades = std::log10(id.x_max / id.x_min);
  id.few_sizes = id.n_sizes < limits.min_sizes;
  id.narrow_span = id.decades < limits.min_decades;
  const std::string level = sci(100.0 * fit.level) + "%";
  if (id.few_sizes)
    id.flags.push_back(std::to_string(id.n_sizes) + " sizes (fewer than " + std::to_string(limits.min_sizes) + ")");
  if (id.narrow_span)
    id.flags.push_back("the sizes span " + sci(id.decades) + " decades (less than " + sci(limits.min_decades) + ")");
  if (fit.E_on_bound)
    id.flags.push_back(fit.E <= 0.0 ? "E = 0, on its lower bound" : "E = the lowest loss, on its upper bound");
  if (fit.A_on_bound) id.flags.push_back("A = 0, on its bound (a flat line: alpha is arbitrary)");
  if (fit.alpha_on_bound) id.flags.push_back("alpha = " + sci(fit.alpha) + ", on its bound");
  if (fit.E_ci.valid() && fit.E_ci.low <= 0.0) {
    id.E_ci_reaches_zero = true;
    id.flags.push_back("E's " + level + " interval reaches 0");
  }
  if (fit.alpha_ci.valid()) {
    const bool at_bound = fit.alpha_ci.low <= 1e-6 || fit.alpha_ci.high >= 3.0;
    id.alpha_ratio = fit.alpha_ci.low > 0.0 ? fit.alpha_ci.high / fit.alpha_ci.low : std::numeric_limits<double>::quiet_NaN();
    id.alpha_ci_wide = at_bound || !(id.alpha_ratio <= limits.alpha_ratio);
    if (id.alpha_ci_wide)
      id.flags.push_back("alpha's " + level + " interval [" + sci(fit.alpha_ci.low) + ", " + sci(fit.alpha_ci.high) + "]" +
                         (at_bound ? " reaches its bounds"
                                   : " spans a factor " + sci(id.alpha_ratio) + " (more than " + sci(limits.alpha_ratio) + ")"));
  }
  for (double x : xs) {
    FitOptions o = options;
    if (x != id.x_max) o.n_boot = 0;  // the per-size refits: point fits only
    id.each.push_back(hold_out(points, x, o, limits.tolerance));
    if (x == id.x_max) id.largest = id.each.back();
  }
  double worst = -1.0;
  for (std::size_t k = 0; k < id.each.size(); ++k)
    if (id.each[k].ok && std::fabs(id.each[k].rel_error) > worst) worst = std::fabs(id.each[k].rel_error), id.worst = k;
  if (!id.largest.ok)
    id.flags.push_back("the largest size cannot be predicted without it: " + id.largest.message);
  else if (!id.largest.within)
    id.flags.push_back("the largest size (x = " + sci(id.x_max) + ") predicted " + percent_text(id.largest.rel_error) +
                       " off by the fit without it (goal within " + sci(100.0 * limits.tolerance) + "%)");
  return id;
}

}  // namespace pha::analysis
