// The IsoFLOP view: budgets by compute, a parabola per budget, N* against C. Method: the header.
#include "analysis/internal/isoflop.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/internal/report_format.h"
#include "core/error.h"

namespace pha::analysis {

namespace {

// Least-squares parabola y = c0 + c1 u + c2 u^2 (u = log10 N) through the budget's sizes, and
// its minimum when it lies inside them.
void fit_parabola(IsoFlopBudget& b) {
  const std::size_t k = b.sizes.size();
  if (k < 3) {
    b.message = std::to_string(k) + " size" + (k == 1 ? "" : "s") + " at this budget; a parabola needs 3";
    return;
  }
  // Centred u for conditioning: v = u - ubar, y = d0 + d1 v + d2 v^2.
  double ubar = 0.0;
  for (double n : b.sizes) ubar += std::log10(n);
  ubar /= static_cast<double>(k);
  double s[5] = {0, 0, 0, 0, 0}, t[3] = {0, 0, 0};  // s[p] = sum v^p, t[p] = sum y v^p
  for (std::size_t i = 0; i < k; ++i) {
    const double v = std::log10(b.sizes[i]) - ubar, y = b.losses[i];
    double vp = 1.0;
    for (int p = 0; p < 5; ++p) {
      s[p] += vp;
      if (p < 3) t[p] += y * vp;
      vp *= v;
    }
  }
  // Normal equations M d = t, M[i][j] = s[i + j], by Cramer's rule.
  auto det3 = [](double a[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  double m[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m[i][j] = s[i + j];
  const double det = det3(m);
  double d[3];
  for (int c = 0; c < 3; ++c) {
    double mc[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) mc[i][j] = j == c ? t[i] : m[i][j];
    d[c] = det3(mc) / det;
  }
  // Back to u: y = d0 + d1 (u - ubar) + d2 (u - ubar)^2.
  b.c2 = d[2];
  b.c1 = d[1] - 2.0 * d[2] * ubar;
  b.c0 = d[0] - d[1] * ubar + d[2] * ubar * ubar;
  if (!(d[2] > 0.0)) {
    b.message = "the losses do not curve upward (no minimum)";
    return;
  }
  const double v_opt = -d[1] / (2.0 * d[2]);
  const double n_opt = std::pow(10.0, ubar + v_opt);
  if (n_opt < b.sizes.front() || n_opt > b.sizes.back()) {
    b.message = "the parabola's minimum (N = " + sci(n_opt) + ") lies " +
                (n_opt < b.sizes.front() ? "below the smallest" : "above the largest") +
                " size tried: not bracketed";
    return;
  }
  b.ok = true;
  b.n_opt = n_opt;
  b.min_loss = d[0] + d[1] * v_opt + d[2] * v_opt * v_opt;
}

}  // namespace

IsoFlopFit isoflop_fit(const std::vector<IsoFlopPoint>& points, const IsoFlopOptions& options) {
  if (!(options.tolerance > 0.0 && options.tolerance <= 2.0))
    throw core::Error("tolerance", "must be in (0, 2] decades of FLOPs, got " + sci(options.tolerance));
  std::vector<IsoFlopPoint> pts;
  for (const IsoFlopPoint& p : points)
    if (std::isfinite(p.n) && std::isfinite(p.c) && std::isfinite(p.y) && p.n > 0 && p.c > 0 && p.y > 0) pts.push_back(p);
  std::sort(pts.begin(), pts.end(), [](const IsoFlopPoint& a, const IsoFlopPoint& b) { return a.c < b.c; });
  IsoFlopFit out;
  for (std::size_t i = 0; i < pts.size();) {
    const double start = std::log10(pts[i].c);
    std::size_t j = i;
    double log_sum = 0.0;
    std::map<double, std::pair<double, std::size_t>> by_n;  // N -> (sum y, count)
    while (j < pts.size() && std::log10(pts[j].c) - start <= options.tolerance) {
      log_sum += std::log10(pts[j].c);
      auto& [sum, count] = by_n[pts[j].n];
      sum += pts[j].y;
      ++count;
      ++j;
    }
    IsoFlopBudget b;
    b.flops = std::pow(10.0, log_sum / static_cast<double>(j - i));
    b.spread = pts[j - 1].c / pts[i].c;
    for (const auto& [n, sc] : by_n) {
      b.sizes.push_back(n);
      b.losses.push_back(sc.first / static_cast<double>(sc.second));
      b.counts.push_back(sc.second);
    }
    fit_parabola(b);
    out.budgets.push_back(std::move(b));
    i = j;
  }
  std::vector<double> lc, ln;
  for (const IsoFlopBudget& b : out.budgets)
    if (b.ok) lc.push_back(std::log10(b.flops)), ln.push_back(std::log10(b.n_opt));
  out.n_used = lc.size();
  const std::size_t need = std::max<std::size_t>(3, options.min_budgets);
  if (lc.size() < need) {
    out.message = "not enough budgets: " + std::to_string(lc.size()) + " of " + std::to_string(out.budgets.size()) +
                  " have a loss-optimal size inside their sizes; the exponent needs " + std::to_string(need);
    return out;
  }
  const double n = static_cast<double>(lc.size());
  double mc = 0.0, mn = 0.0;
  for (std::size_t i = 0; i < lc.size(); ++i) mc += lc[i], mn += ln[i];
  mc /= n, mn /= n;
  double scc = 0.0, scn = 0.0;
  for (std::size_t i = 0; i < lc.size(); ++i) scc += (lc[i] - mc) * (lc[i] - mc), scn += (lc[i] - mc) * (ln[i] - mn);
  if (!(scc > 0.0)) {
    out.message = "not enough budgets: the budgets with a loss-optimal size share one compute";
    return out;
  }
  out.ok = true;
  out.exponent = scn / scc;
  const double intercept = mn - out.exponent * mc;
  out.coefficient = std::pow(10.0, intercept);
  double sse = 0.0;
  for (std::size_t i = 0; i < lc.size(); ++i) {
    const double r = ln[i] - intercept - out.exponent * lc[i];
    sse += r * r;
  }
  out.exponent_se = std::sqrt(sse / (n - 2.0) / scc);
  return out;
}

}  // namespace pha::analysis
