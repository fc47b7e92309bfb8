// Scaling-law fits: variable projection over alpha (closed-form box-constrained least squares in
// (E, A) for each alpha, grid + Brent on the profile), the bootstrap, crossings. Method: the
// header.
#include "analysis/scaling_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/error.h"
#include "core/numbers.h"

namespace pha::analysis {

namespace {

using core::kNaN;
constexpr double kAlphaMax = 3.0;
constexpr double kAlphaMin = 1e-6;  // the refinement's lower end: alpha is in (0, 3]
constexpr int kAlphaGrid = 300;     // alpha_k = 0.01 k, k = 1..300
constexpr int kScanSteps = 1000;    // crossover: 1001 log-spaced samples

std::string g4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A uniform index in [0, n), n >= 1, by rejection (unbiased, the same on every platform).
std::size_t draw_index(std::mt19937_64& g, std::size_t n) {
  const std::uint64_t m = n;
  const std::uint64_t rem = (UINT64_MAX % m + 1) % m;  // 2^64 mod m
  if (rem == 0) return static_cast<std::size_t>(g() % m);
  const std::uint64_t limit = 0 - rem;  // 2^64 - rem: a multiple of m
  for (;;) {
    const std::uint64_t r = g();
    if (r < limit) return static_cast<std::size_t>(r % m);
  }
}

// The p-quantile of sorted values, linear interpolation between order statistics (type 7).
double quantile_sorted(const std::vector<double>& v, double p) {
  if (v.empty()) return kNaN;
  const double h = (static_cast<double>(v.size()) - 1.0) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= v.size()) return v.back();
  return v[lo] + (h - static_cast<double>(lo)) * (v[lo + 1] - v[lo]);
}

Interval percentile_interval(std::vector<double> v, double level) {
  Interval iv;
  if (v.size() < 2) return iv;
  std::sort(v.begin(), v.end());
  iv.low = quantile_sorted(v, 0.5 * (1.0 - level));
  iv.high = quantile_sorted(v, 0.5 * (1.0 + level));
  return iv;
}

// The data of one fit: u = log(x / x_ref), y, and E's upper bound.
struct Data {
  std::vector<double> u;
  std::vector<double> y;
  double e_max = 0.0;
};

struct Linear {
  double E = 0.0;
  double A_ref = 0.0;  // A * x_ref^(-alpha)
  double sse = 0.0;
};

double sse_of(const Data& d, const std::vector<double>& f, double E, double A) {
  double s = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double r = d.y[i] - E - A * f[i];
    s += r * r;
  }
  return s;
}

// min SSE over {0 <= E <= e_max, A >= 0} for fixed alpha: the unconstrained line if it is in
// the box, else the best of the three edges (a convex quadratic on a polygon).
Linear solve_linear(const Data& d, double alpha, std::vector<double>& f) {
  const std::size_t n = d.y.size();
  f.resize(n);
  double fbar = 0.0, ybar = 0.0, sff0 = 0.0, sfy0 = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    f[i] = std::exp(-alpha * d.u[i]);
    fbar += f[i];
    ybar += d.y[i];
    sff0 += f[i] * f[i];
    sfy0 += f[i] * d.y[i];
  }
  fbar /= static_cast<double>(n);
  ybar /= static_cast<double>(n);
  double sff = 0.0, sfy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sff += (f[i] - fbar) * (f[i] - fbar);
    sfy += (f[i] - fbar) * (d.y[i] - ybar);
  }
  if (sff > 0.0) {
    const double A = sfy / sff, E = ybar - A * fbar;
    if (std::isfinite(A) && std::isfinite(E) && A >= 0.0 && E >= 0.0 && E <= d.e_max)
      return {E, A, sse_of(d, f, E, A)};
  }
  Linear best;
  best.sse = std::numeric_limits<double>::infinity();
  auto consider = [&](double E, double A) {
    if (!std::isfinite(E) || !std::isfinite(A)) return;
    const double s = sse_of(d, f, E, A);
    if (s < best.sse) best = {E, A, s};
  };
  // E = 0: A = sum f y / sum f^2; E = e_max: the same on y - e_max; A = 0: E = mean y.
  if (sff0 > 0.0) {
    consider(0.0, std::max(0.0, sfy0 / sff0));
    double sfe = 0.0;
    for (std::size_t i = 0; i < n; ++i) sfe += f[i] * (d.y[i] - d.e_max);
    consider(d.e_max, std::max(0.0, sfe / sff0));
  }
  consider(std::clamp(ybar, 0.0, d.e_max), 0.0);
  return best;
}

// Brent's minimisation of g on [a, b] from the point x (Numerical Recipes 10.3).
template <class G>
double brent_min(G&& g, double a, double b, double x, double tol, double& fx_out) {
  constexpr double kCGold = 0.3819660112501051;
  constexpr double kZeps = 1e-12;
  double w = x, v = x, fx = g(x), fw = fx, fv = fx;
  double d = 0.0, e = 0.0;
  for (int iter = 0; iter < 200; ++iter) {
    const double xm = 0.5 * (a + b);
    const double tol1 = tol * std::fabs(x) + kZeps, tol2 = 2.0 * tol1;
    if (std::fabs(x - xm) <= tol2 - 0.5 * (b - a)) break;
    bool golden = true;
    if (std::fabs(e) > tol1) {
      double r = (x - w) * (fx - fv);
      double q = (x - v) * (fx - fw);
      double p = (x - v) * q - (x - w) * r;
      q = 2.0 * (q - r);
      if (q > 0.0) p = -p;
      q = std::fabs(q);
      const double etemp = e;
      e = d;
      if (!(std::fabs(p) >= std::fabs(0.5 * q * etemp) || p <= q * (a - x) || p >= q * (b - x))) {
        d = p / q;
        const double u = x + d;
        if (u - a < tol2 || b - u < tol2) d = xm - x >= 0 ? tol1 : -tol1;
        golden = false;
      }
    }
    if (golden) {
      e = x >= xm ? a - x : b - x;
      d = kCGold * e;
    }
    const double u = std::fabs(d) >= tol1 ? x + d : x + (d >= 0 ? tol1 : -tol1);
    const double fu = g(u);
    if (fu <= fx) {
      (u >= x ? a : b) = x;
      v = w, fv = fw;
      w = x, fw = fx;
      x = u, fx = fu;
    } else {
      (u < x ? a : b) = u;
      if (fu <= fw || w == x) {
        v = w, fv = fw;
        w = u, fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u, fv = fu;
      }
    }
  }
  fx_out = fx;
  return x;
}

struct Core {
  double alpha = 0.0;
  Linear lin;
};

// The point fit of prepared data (at least 3 distinct x).
Core fit_core(const Data& d) {
  std::vector<double> f;
  auto profile = [&](double alpha) { return solve_linear(d, alpha, f).sse; };
  int best_k = 1;
  double best_s = std::numeric_limits<double>::infinity();
  for (int k = 1; k <= kAlphaGrid; ++k) {
    const double s = profile(kAlphaMax * k / kAlphaGrid);
    if (s < best_s) best_s = s, best_k = k;
  }
  const double step = kAlphaMax / kAlphaGrid;
  double alpha = step * best_k;
  const double lo = best_k == 1 ? kAlphaMin : step * (best_k - 1);
  const double hi = std::min(kAlphaMax, step * (best_k + 1));
  double s_refined = 0.0;
  const double refined = brent_min(profile, lo, hi, alpha, 3e-9, s_refined);
  if (s_refined < best_s) alpha = refined;
  // The lower end of the range, which the grid does not sample.
  if (best_k == 1 && profile(kAlphaMin) < std::min(best_s, s_refined)) alpha = kAlphaMin;
  Core c;
  c.alpha = alpha;
  c.lin = solve_linear(d, alpha, f);
  return c;
}

// L_a(x) - L_b(x) sign changes over samples t_i (log x); root(l, r) locates one between samples
// l and r that have opposite signs and nothing between them. Returns (t, sign of d before it).
template <class Root>
std::vector<std::pair<double, int>> sign_changes(const std::vector<double>& t, const std::vector<double>& dv,
                                                 Root&& root) {
  std::vector<std::pair<double, int>> out;
  int last_sign = 0;
  std::size_t last_i = 0, first_zero = 0;
  bool in_zero = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const int s = dv[i] > 0 ? 1 : dv[i] < 0 ? -1 : 0;
    if (s == 0) {
      if (!in_zero) in_zero = true, first_zero = i;
      continue;
    }
    if (last_sign != 0 && s != last_sign) out.emplace_back(in_zero ? t[first_zero] : root(last_i, i), last_sign);
    last_sign = s;
    last_i = i;
    in_zero = false;
  }
  return out;
}

// Crossings of two power laws in [exp(t_lo), exp(t_hi)], in log x; `first_sign` gets the sign
// of the first nonzero sample of L_a - L_b (0 when they coincide on every sample).
std::vector<std::pair<double, int>> law_crossings(const PowerLawParams& a, const PowerLawParams& b, double t_lo,
                                                  double t_hi, int* first_sign = nullptr) {
  auto diff = [&](double t) {
    const double x = std::exp(t);
    return a.at(x) - b.at(x);
  };
  std::vector<double> t(kScanSteps + 1), dv(kScanSteps + 1);
  for (int i = 0; i <= kScanSteps; ++i) {
    t[i] = i == kScanSteps ? t_hi : t_lo + (t_hi - t_lo) * i / kScanSteps;
    dv[i] = diff(t[i]);
  }
  if (first_sign) {
    *first_sign = 0;
    for (double v : dv)
      if (v != 0) {
        *first_sign = v > 0 ? 1 : -1;
        break;
      }
  }
  const double width = 1e-12 * std::max(1.0, std::max(std::fabs(t_lo), std::fabs(t_hi)));
  return sign_changes(t, dv, [&](std::size_t l, std::size_t r) {
    double lo = t[l], hi = t[r];
    const bool lo_positive = dv[l] > 0;
    for (int it = 0; it < 200 && hi - lo > width; ++it) {
      const double mid = 0.5 * (lo + hi);
      const double dm = diff(mid);
      if (dm == 0) return mid;
      ((dm > 0) == lo_positive ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  });
}

Lower lower_for_sign(int sign_of_a_minus_b) {
  return sign_of_a_minus_b > 0 ? Lower::kB : sign_of_a_minus_b < 0 ? Lower::kA : Lower::kTie;
}

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * f);
  return buf;
}

}  // namespace

double PowerLawParams::at(double x) const {
  if (!(A > 0.0)) return E;
  return E + std::exp(std::log(A) - alpha * std::log(x));
}

bool Interval::valid() const { return std::isfinite(low) && std::isfinite(high); }

const char* resample_name(Resample r) {
  switch (r) {
    case Resample::kPoints: return "points";
    case Resample::kWithinX: return "within_x";
    case Resample::kClusters: return "clusters";
  }
  return "?";
}

const char* lower_name(Lower l) {
  switch (l) {
    case Lower::kA: return "a";
    case Lower::kB: return "b";
    case Lower::kTie: return "tie";
  }
  return "?";
}

PowerLawParams PowerLawFit::params() const { return {E, A, alpha}; }

double PowerLawFit::at(double x) const { return params().at(x); }

PowerLawFit fit_power_law(const std::vector<ScalingPoint>& points, const FitOptions& options) {
  if (!(options.level > 0.0 && options.level < 1.0))
    throw core::Error("level", "must be in (0, 1) (0.95 for a 95% interval), got " + g4(options.level));
  for (double x : options.band_x)
    if (!(std::isfinite(x) && x > 0.0)) throw core::Error("band_x", "every query x must be finite and > 0, got " + g4(x));

  PowerLawFit fit;
  fit.level = options.level;
  fit.residuals.assign(points.size(), kNaN);
  for (double x : options.band_x) fit.band.push_back({x, kNaN, kNaN, kNaN});

  std::vector<std::size_t> kept;  // indexes into points
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ScalingPoint& p = points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
      ++fit.dropped;
      continue;
    }
    if (p.x <= 0.0) {
      fit.message = "x must be > 0 (L = E + A x^-alpha); the point at index " + std::to_string(i) + " has x = " +
                    g4(p.x);
      return fit;
    }
    kept.push_back(i);
  }
  const std::string after_drop =
      fit.dropped ? " (after dropping " + std::to_string(fit.dropped) + " non-finite points)" : "";
  std::vector<double> distinct;
  for (std::size_t i : kept) distinct.push_back(points[i].x);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  fit.n = kept.size();
  fit.n_distinct_x = distinct.size();
  if (distinct.size() < 3) {
    std::string list;
    for (double x : distinct) list += (list.empty() ? "" : ", ") + g4(x);
    fit.message = "needs at least 3 distinct x to fit E, A and alpha; got " + std::to_string(distinct.size()) +
                  (list.empty() ? "" : " (x = " + list + ")") + after_drop;
    return fit;
  }

  // x_ref: the geometric mean of the fitted points' x.
  double log_ref = 0.0;
  for (std::size_t i : kept) log_ref += std::log(points[i].x);
  log_ref /= static_cast<double>(kept.size());
  Data data;
  std::vector<std::size_t> group(kept.size());  // distinct-x index of each kept point
  std::vector<std::vector<std::size_t>> members(distinct.size());
  data.e_max = kNaN;
  for (std::size_t j = 0; j < kept.size(); ++j) {
    const ScalingPoint& p = points[kept[j]];
    data.u.push_back(std::log(p.x) - log_ref);
    data.y.push_back(p.y);
    group[j] = static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), p.x) - distinct.begin());
    members[group[j]].push_back(j);
  }
  const double y_min = *std::min_element(data.y.begin(), data.y.end());
  data.e_max = std::max(0.0, y_min);

  auto to_params = [&](const Core& c) {
    return PowerLawParams{c.lin.E, c.lin.A_ref * std::exp(c.alpha * log_ref), c.alpha};
  };
  const Core core = fit_core(data);
  const PowerLawParams p = to_params(core);
  fit.ok = true;
  fit.E = p.E;
  fit.A = p.A;
  fit.alpha = p.alpha;
  fit.E_on_bound = p.E <= 0.0 || p.E >= data.e_max;
  fit.A_on_bound = p.A <= 0.0;
  fit.alpha_on_bound = p.alpha >= kAlphaMax || p.alpha <= kAlphaMin;
  double sse = 0.0;
  for (std::size_t j = 0; j < kept.size(); ++j) {
    const double r = data.y[j] - p.at(points[kept[j]].x);
    fit.residuals[kept[j]] = r;
    sse += r * r;
  }
  fit.rmse = std::sqrt(sse / static_cast<double>(kept.size()));
  for (BandPoint& b : fit.band) b.fit = p.at(b.x);

  // The bootstrap.
  const Resample scheme = options.resample;
  fit.resample = scheme;
  if (options.n_boot == 0) return fit;

  std::mt19937_64 rng(options.seed);
  std::vector<std::size_t> draw;
  std::vector<char> seen(distinct.size());
  std::vector<std::vector<double>> band_values(fit.band.size());
  Data rd;
  for (std::size_t b = 0; b < options.n_boot; ++b) {
    draw.clear();
    switch (scheme) {
      case Resample::kPoints:
        for (std::size_t k = 0; k < kept.size(); ++k) draw.push_back(draw_index(rng, kept.size()));
        break;
      case Resample::kWithinX:
        for (const std::vector<std::size_t>& m : members)
          for (std::size_t k = 0; k < m.size(); ++k) draw.push_back(m[draw_index(rng, m.size())]);
        break;
      case Resample::kClusters:
        for (std::size_t k = 0; k < members.size(); ++k) {
          const std::vector<std::size_t>& m = members[draw_index(rng, members.size())];
          draw.insert(draw.end(), m.begin(), m.end());
        }
        break;
    }
    std::fill(seen.begin(), seen.end(), 0);
    std::size_t n_seen = 0;
    rd.u.clear();
    rd.y.clear();
    for (std::size_t j : draw) {
      if (!seen[group[j]]) seen[group[j]] = 1, ++n_seen;
      rd.u.push_back(data.u[j]);
      rd.y.push_back(data.y[j]);
    }
    if (n_seen < 3) {
      ++fit.boot_failed;
      continue;
    }
    rd.e_max = std::max(0.0, *std::min_element(rd.y.begin(), rd.y.end()));
    const PowerLawParams q = to_params(fit_core(rd));
    if (!std::isfinite(q.E) || !std::isfinite(q.A) || !std::isfinite(q.alpha)) {
      ++fit.boot_failed;
      continue;
    }
    fit.replicas.push_back(q);
    for (std::size_t k = 0; k < fit.band.size(); ++k) band_values[k].push_back(q.at(fit.band[k].x));
  }
  fit.boot_ok = fit.replicas.size();
  std::vector<double> es, as, alphas;
  for (const PowerLawParams& q : fit.replicas) {
    es.push_back(q.E);
    as.push_back(q.A);
    alphas.push_back(q.alpha);
  }
  fit.E_ci = percentile_interval(es, options.level);
  fit.A_ci = percentile_interval(as, options.level);
  fit.alpha_ci = percentile_interval(alphas, options.level);
  for (std::size_t k = 0; k < fit.band.size(); ++k) {
    const Interval iv = percentile_interval(band_values[k], options.level);
    fit.band[k].low = iv.low;
    fit.band[k].high = iv.high;
  }
  return fit;
}

Crossover crossover(const PowerLawFit& a, const PowerLawFit& b, double x_lo, double x_hi, double level) {
  if (!(std::isfinite(x_lo) && x_lo > 0.0)) throw core::Error("x_lo", "must be finite and > 0, got " + g4(x_lo));
  if (!(std::isfinite(x_hi) && x_hi > x_lo))
    throw core::Error("x_hi", "must be finite and > x_lo (" + g4(x_lo) + "), got " + g4(x_hi));
  if (!(level > 0.0 && level < 1.0)) throw core::Error("level", "must be in (0, 1), got " + g4(level));
  Crossover c;
  c.x_lo = x_lo;
  c.x_hi = x_hi;
  c.x = kNaN;
  c.fraction_crossing = kNaN;
  if (!a.ok || !b.ok) {
    c.message = std::string("fit ") + (a.ok ? "b" : "a") + " failed: " + (a.ok ? b.message : a.message);
    return c;
  }
  const double t_lo = std::log(x_lo), t_hi = std::log(x_hi);
  int first_sign = 0;
  const auto point = law_crossings(a.params(), b.params(), t_lo, t_hi, &first_sign);
  for (const auto& [t, sign] : point) c.all.push_back(std::exp(t));
  if (!point.empty()) {
    c.found = true;
    c.x = c.all.front();
    c.lower_below = lower_for_sign(point.front().second);
    c.lower_above = lower_for_sign(-point.front().second);
  } else {
    c.lower_below = c.lower_above = lower_for_sign(first_sign);
  }

  c.n_pairs = std::min(a.replicas.size(), b.replicas.size());
  std::vector<double> crossing_t;
  for (std::size_t k = 0; k < c.n_pairs; ++k) {
    const auto rc = law_crossings(a.replicas[k], b.replicas[k], t_lo, t_hi);
    if (rc.empty()) continue;
    double chosen = rc.front().first;
    if (c.found) {
      const double target = point.front().first;
      for (const auto& [t, sign] : rc)
        if (std::fabs(t - target) < std::fabs(chosen - target)) chosen = t;
    }
    crossing_t.push_back(chosen);
  }
  c.n_crossing = crossing_t.size();
  if (c.n_pairs > 0) c.fraction_crossing = static_cast<double>(c.n_crossing) / static_cast<double>(c.n_pairs);
  const Interval t_ci = percentile_interval(crossing_t, level);
  if (t_ci.valid()) c.ci = {std::exp(t_ci.low), std::exp(t_ci.high)};

  const std::string range = "[" + g4(x_lo) + ", " + g4(x_hi) + "]";
  if (!c.found) {
    c.message = first_sign == 0 ? "the two fits coincide on " + range : "no crossover in range " + range;
    return c;
  }
  c.message = "the fits cross at x = " + g4(c.x) + " in " + range + ": " + lower_name(c.lower_below) +
              " is lower below, " + lower_name(c.lower_above) + " above";
  if (c.all.size() > 1) c.message += " (" + std::to_string(c.all.size()) + " crossings in range; the lowest given)";
  if (c.n_pairs > 0) {
    c.message += "; " + percent(c.fraction_crossing) + " of " + std::to_string(c.n_pairs) +
                 " bootstrap pairs cross in range";
    if (c.ci.valid())
      c.message += ", " + g4(100.0 * level) + "% interval [" + g4(c.ci.low) + ", " + g4(c.ci.high) + "]";
  }
  return c;
}

std::vector<double> curve_crossings(const std::vector<std::pair<double, double>>& a,
                                    const std::vector<std::pair<double, double>>& b) {
  auto clean = [](const std::vector<std::pair<double, double>>& c, const char* name) {
    std::vector<std::pair<double, double>> out;
    for (const auto& p : c) {
      if (!std::isfinite(p.first) || !std::isfinite(p.second)) continue;
      if (!out.empty() && !(p.first > out.back().first))
        throw core::Error(name, "x must be strictly ascending; x = " + g4(p.first) + " follows x = " +
                              g4(out.back().first));
      out.push_back(p);
    }
    return out;
  };
  const auto ca = clean(a, "a"), cb = clean(b, "b");
  if (ca.size() < 2 || cb.size() < 2) return {};
  const double lo = std::max(ca.front().first, cb.front().first);
  const double hi = std::min(ca.back().first, cb.back().first);
  if (!(lo < hi)) return {};
  std::vector<double> xs{lo, hi};
  for (const auto* c : {&ca, &cb})
    for (const auto& p : *c)
      if (p.first > lo && p.first < hi) xs.push_back(p.first);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  auto interp = [](const std::vector<std::pair<double, double>>& c, double x) {
    const auto it = std::lower_bound(c.begin(), c.end(), x,
                                     [](const std::pair<double, double>& p, double v) { return p.first < v; });
    if (it == c.end()) return c.back().second;
    if (it->first == x || it == c.begin()) return it->second;
    const auto prev = it - 1;
    return prev->second + (x - prev->first) / (it->first - prev->first) * (it->second - prev->second);
  };
  std::vector<double> dv;
  for (double x : xs) dv.push_back(interp(ca, x) - interp(cb, x));
  const auto found = sign_changes(xs, dv, [&](std::size_t l, std::size_t r) {
    return xs[l] - dv[l] * (xs[r] - xs[l]) / (dv[r] - dv[l]);
  });
  std::vector<double> out;
  for (const auto& [x, sign] : found) out.push_back(x);
  return out;
}

std::vector<double> log_spaced(double lo, double hi, int n) {
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) xs.push_back(std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * i / (n - 1)));
  return xs;
}

}  // namespace pha::analysis
