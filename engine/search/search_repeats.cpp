// Repeated successive-halving searches against the exhaustive grid (search_repeats.h): the walk
// over rungs is schedule.h's ladder and promotion.h's decisions, as the runner's; the figures
// are computed from the injected objective's values.
#include "search/search_repeats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "search/schedule.h"
#include "core/numbers.h"

namespace pha::search {

namespace {

using core::splitmix64;

// `k` distinct indices of 0..n-1 (a partial Fisher-Yates shuffle), sorted.
std::vector<int> draw(int n, int k, std::uint64_t seed) {
  std::vector<int> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  std::uint64_t state = seed;
  for (int i = 0; i < k; ++i) {
    const auto j = static_cast<size_t>(i) + static_cast<size_t>(splitmix64(state) % static_cast<std::uint64_t>(n - i));
    std::swap(all[static_cast<size_t>(i)], all[j]);
  }
  all.resize(static_cast<size_t>(k));
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return rank;
}

// 1 - C(n-2, m) / C(n, m): m of n drawn without replacement include one of 2 marked.
double chance_top2(int n, int m) {
  if (n < 2 || m <= 0) return n >= 1 && m >= 1 ? 1.0 : 0.0;
  if (m >= n - 1) return 1.0;
  const double nn = n, mm = m;
  return 1.0 - (nn - mm) * (nn - mm - 1.0) / (nn * (nn - 1.0));
}

struct Walker {
  const RepeatSetup& setup;
  const RepeatProblem& problem;
  const RepeatStudy& study;

  double regret_of(int trial) const {
    const double best = study.full_values[static_cast<size_t>(study.grid_order.front())];
    const double v = study.full_values[static_cast<size_t>(trial)];
    return setup.objective.goal == core::MetricGoal::Maximize ? best - v : v - best;
  }

  RepeatRung measure(const Rung& rung, const std::vector<int>& alive, const std::vector<std::uint64_t>& seeds,
                     int keep, bool last, RepeatOutcome& out) const {
    RepeatRung rr;
    rr.rung = rung.index;
    rr.resource = rung.resource;
    rr.seeds = alive.size() > 1 ? static_cast<int>(seeds.size()) : 1;  // a lone trial: nothing to decide
    std::vector<TrialOutcome> outcomes;
    for (int t : alive) {
      TrialOutcome o;
      o.trial = t;
      o.values.assign(1, {});
      for (int j = 0; j < rr.seeds; ++j) {
        o.values[0].push_back(problem.rung_value(t, rung.index, rung.resource, seeds[static_cast<size_t>(j)]));
        out.compute += problem.rung_cost ? problem.rung_cost(t, rung.index) : rung.resource;
      }
      outcomes.push_back(std::move(o));
    }
    const Decision d = promote(outcomes, {setup.objective}, last ? static_cast<int>(alive.size()) : keep, setup.promotion);
    std::vector<double> rung_means, full;
    for (const Ranked& r : d.ranking) {
      rr.trials.push_back(r.trial);
      rr.means.push_back(r.failed ? std::nan("") : r.mean[0]);
      const double f = study.full_values[static_cast<size_t>(r.trial)];
      if (!r.failed && std::isfinite(f)) rung_means.push_back(r.mean[0]), full.push_back(f);
    }
    rr.spearman = rung_means.size() >= 3 ? spearman(rung_means, full) : std::nan("");
    rr.pooled_sd = d.pooled_sd;
    rr.df = d.df;
    if (!last) rr.promoted = d.promoted, rr.kept_close = d.kept_close;
    if (last && !d.ranking.empty() && !d.ranking.front().failed) out.pick = d.ranking.front().trial;
    return rr;
  }

  RepeatOutcome one(int repeat) const {
    RepeatOutcome out;
    out.repeat = repeat;
    for (int j = 0; j < setup.replicas; ++j)
      out.seeds.push_back(setup.first_seed + static_cast<std::uint64_t>(repeat) * static_cast<std::uint64_t>(setup.replicas) +
                          static_cast<std::uint64_t>(j));
    std::vector<int> alive;
    if (setup.sampled_trials > 0)
      alive = draw(setup.grid_trials, setup.sampled_trials, setup.sampler_seed + static_cast<std::uint64_t>(repeat));
    else
      for (int t = 0; t < setup.grid_trials; ++t) alive.push_back(t);
    const Bracket b = hyperband_brackets(setup.budget, static_cast<int>(alive.size())).front();
    for (size_t k = 0; k < b.rungs.size() && !alive.empty(); ++k) {
      const bool last = k + 1 == b.rungs.size();
      const int keep = last ? 0 : b.rungs[k + 1].trials;
      out.rungs.push_back(measure(b.rungs[k], alive, out.seeds, keep, last, out));
      alive = out.rungs.back().promoted;
    }
    out.compute_fraction = study.grid_compute > 0 ? out.compute / study.grid_compute : std::nan("");
    if (out.pick >= 0) {
      const auto pos = std::find(study.grid_order.begin(), study.grid_order.end(), out.pick);
      out.pick_rank = static_cast<int>(pos - study.grid_order.begin()) + 1;
      out.pick_value = study.full_values[static_cast<size_t>(out.pick)];
      out.regret = std::isfinite(out.pick_value) ? regret_of(out.pick) : std::nan("");
    } else {
      out.pick_value = out.regret = std::nan("");
    }
    return out;
  }
};

void check(const RepeatSetup& s, int repeats, const RepeatProblem& p) {
  if (repeats < 1) throw core::Error("--repeat", std::to_string(repeats) + " is out of range; allowed: 1 or more");
  if (s.budget.brackets != 1)
    throw core::Error("search.budget.brackets", "repeats compare successive halving (1 bracket) with the grid; got " +
                                              std::to_string(s.budget.brackets));
  if (s.grid_trials < 1) throw core::Error("search", "repeats need a grid of at least 1 trial");
  if (s.sampled_trials < 0 || s.sampled_trials > s.grid_trials)
    throw core::Error("search.sampler.trials", std::to_string(s.sampled_trials) + " trials drawn from a grid of " +
                                             std::to_string(s.grid_trials) + "; allowed: 1 to the grid's size");
  if (s.replicas < 1) throw core::Error("search.seeds", "allowed: 1 or more replicas");
  if (!p.rung_value || !p.full_value) throw core::Error("search", "repeats need rung_value and full_value");
}

// Pools each rung's replicas over the repeats and takes the medians.
void summarise(RepeatStudy& st, int n_rungs) {
  std::vector<double> regrets, fractions;
  int top2 = 0;
  for (const RepeatOutcome& r : st.repeats) {
    if (std::isfinite(r.regret)) regrets.push_back(r.regret);
    fractions.push_back(r.compute_fraction);
    top2 += r.pick_rank >= 1 && r.pick_rank <= 2 ? 1 : 0;
  }
  st.median_regret = median(regrets);
  st.top2_rate = static_cast<double>(top2) / static_cast<double>(st.repeats.size());
  st.median_compute_fraction = median(fractions);
  st.seed_sd = std::nan("");
  for (int k = 0; k < n_rungs; ++k) {
    double ss = 0;
    int df = 0;
    std::vector<double> rho;
    for (const RepeatOutcome& r : st.repeats) {
      if (static_cast<int>(r.rungs.size()) <= k) continue;
      const RepeatRung& g = r.rungs[static_cast<size_t>(k)];
      if (g.df > 0 && std::isfinite(g.pooled_sd)) ss += g.pooled_sd * g.pooled_sd * g.df, df += g.df;
      if (std::isfinite(g.spearman)) rho.push_back(g.spearman);
    }
    st.rung_pooled_sd.push_back(df > 0 ? std::sqrt(ss / df) : std::nan(""));
    st.rung_df.push_back(df);
    st.rung_spearman.push_back(median(rho));
    st.rung_spearman_n.push_back(static_cast<int>(rho.size()));
    if (df > 0) st.seed_sd = st.rung_pooled_sd.back();
  }
  const int n = static_cast<int>(st.full_values.size());
  st.equal_compute_trials = std::isfinite(st.median_compute_fraction)
                                ? static_cast<int>(std::floor(st.median_compute_fraction * n + 1e-9))
                                : 0;
  st.equal_compute_chance_top2 = chance_top2(n, std::min(n, st.equal_compute_trials));
}

}  // namespace

double median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return std::nan("");
  const std::vector<double> ra = average_ranks(a), rb = average_ranks(b);
  const double n = static_cast<double>(a.size()), mean = (n + 1.0) / 2.0;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (!(saa > 0) || !(sbb > 0)) return std::nan("");
  return sab / std::sqrt(saa * sbb);
}

RepeatStudy run_repeats(const RepeatSetup& setup, int repeats, const RepeatProblem& problem) {
  check(setup, repeats, problem);
  RepeatStudy st;
  const bool maximize = setup.objective.goal == core::MetricGoal::Maximize;
  for (int t = 0; t < setup.grid_trials; ++t) {
    st.full_values.push_back(problem.full_value(t));
    st.grid_compute += problem.full_cost ? problem.full_cost(t) : setup.budget.max;
  }
  st.grid_order.resize(st.full_values.size());
  std::iota(st.grid_order.begin(), st.grid_order.end(), 0);
  std::stable_sort(st.grid_order.begin(), st.grid_order.end(), [&](int a, int b) {
    const double x = st.full_values[static_cast<size_t>(a)], y = st.full_values[static_cast<size_t>(b)];
    if (std::isfinite(x) != std::isfinite(y)) return std::isfinite(x);
    return maximize ? x > y : x < y;
  });
  const Walker w{setup, problem, st};
  int n_rungs = 0;
  for (int r = 0; r < repeats; ++r) {
    st.repeats.push_back(w.one(r));
    n_rungs = std::max(n_rungs, static_cast<int>(st.repeats.back().rungs.size()));
  }
  summarise(st, n_rungs);
  return st;
}

}  // namespace pha::search
