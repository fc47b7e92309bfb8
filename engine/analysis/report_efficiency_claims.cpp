// The efficiency claim's rows (docs/report.md, Efficiency): the seed paper's "more throughput and
// less memory than an attention-only baseline of similar quality". Each replica of the hybrid is
// matched to the baseline at its own final quality (the closest baseline run within the
// tolerance, else the baseline's fitted log-log curve of quality against parameters, inside
// the sizes trained), and the two models' stored inference figures (store/inference_store.h,
// `pha bench inference`) give a throughput and a memory ratio per replica. The row is the
// one-sample t interval of each mean log ratio against its threshold; its raw p and direction
// go to the report's correction (report_stats.cpp) like every other row's.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <cstdio>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"
#include "core/metric_table.h"
#include "store/inference_store.h"
#include "store/store.h"

namespace pha::analysis::detail {

namespace {

using nlohmann::json;

// One model's figures at the claim's inference point (L, batch): one entry per timing (the
// sweep's repeats, each a fresh worker, in repeat order).
struct Figures {
  std::vector<double> tokens_per_s;  // of the claim's phase
  std::vector<double> memory;        // weights + KV cache + GSS state + activations, bytes
  std::vector<double> peak;          // peak RSS of the worker, bytes
  double timing_rse = kNoValue;      // decode: relative standard error of the median step (median_rse), the largest over the timings
  std::string problem;               // why there are none ("" when there are)
  std::size_t timings() const { return tokens_per_s.size(); }
};

// A baseline run with a finite value of the claim's metric.
struct BaselineRun {
  const GroupReport* group = nullptr;
  int64_t seed = 0;
  double value = kNoValue;
};

// Where a replica of the hybrid was matched: the baseline's (interpolated) figures and value.
struct Match {
  std::string how;      // "matched by measured runs: ..." / "matched by fitted curve at ..."
  std::string problem;  // no match, or the matched model has no figures
  bool unmeasured = false;  // the problem is a missing inference point (`pha bench inference` fixes it)
  double value = kNoValue;
  Figures figures;
};

// log(metric) = a + b log(n_params), least squares over every baseline run (positive values).
struct LogFit {
  bool ok = false;
  double a = 0.0, b = 0.0;
  std::vector<std::pair<double, const GroupReport*>> sizes;  // distinct n_params, ascending, a group of each
};

double phase_rate(const store::InferencePointResult& p, const std::string& phase) {
  return phase == "prefill" ? p.prefill_tokens_per_s : phase == "e2e" ? p.e2e_tokens_per_s : p.decode_tokens_per_s;
}

// Loss-like metrics improve downwards; accuracies upwards (core/metric_table.h).
bool lower_is_better(const MetricRef& m) {
  return !core::is_metric_kind(m.source == MetricRef::Source::Eval ? m.metric : m.key, core::MetricKind::Accuracy);
}

std::string where_text(const Claim& c) {
  return "L " + std::to_string(c.seq_len) + ", batch " + std::to_string(c.batch);
}

// The command that measures the project's models at the claim's point (the store lives in the
// project's folder, docs/project-format.md).
std::string bench_command(const Claim& c, store::Store& store) {
  std::string dir = std::filesystem::path(store.path()).parent_path().string();
  if (dir.empty()) dir = ".";
  return "\"pha bench inference --project " + dir + " --seq-lens " + std::to_string(c.seq_len) + " --batches " +
         std::to_string(c.batch) + "\"";
}

// The relative standard error of the median of a model's decode steps: 1.2533 x the robust
// spread (1.4826 x the median absolute deviation, so that a slow first step does not count) over
// the median and sqrt(n); NaN with fewer than 3 steps.
double median_rse(std::vector<double> ms) {
  if (ms.size() < 3) return kNoValue;
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
  };
  const double m = median(ms);
  if (!(m > 0)) return kNoValue;
  for (double& v : ms) v = std::fabs(v - m);
  return 1.2533 * 1.4826 * median(ms) / m / std::sqrt(static_cast<double>(ms.size()));
}

// The model configs a group was trained with: the plan's (what `pha bench inference --project`
// measures), then each replica's as the store recorded it.
std::vector<json> model_configs(const GroupReport& g, const Study& study, store::Store& store) {
  std::vector<json> out;
  auto add = [&](const json& cfg) {
    if (!cfg.is_object()) return;
    json unnamed = cfg;
    unnamed.erase("name");
    if (std::find(out.begin(), out.end(), unnamed) == out.end()) out.push_back(std::move(unnamed));
  };
  for (const StudyRun& r : study.runs)
    if (r.group == g.group && r.config.contains("model")) add(r.config["model"]);
  for (const Replica& r : g.replicas)
    if (const auto run = store.get_run(r.run_id)) {
      const json cfg = json::parse(run->config_json, nullptr, /*allow_exceptions=*/false);
      if (cfg.is_object() && cfg.contains("model")) add(cfg["model"]);
    }
  return out;
}

Figures read_figures(const Claim& c, const GroupReport& g, const Study& study, store::Store& store) {
  Figures f;
  store::ModelInference m;
  for (const json& cfg : model_configs(g, study, store)) {
    m = store::inference_of_model(store, cfg);
    if (m.run_id != 0) break;
  }
  if (m.run_id == 0) {
    f.problem = g.group + " has no inference run (its model was not measured)";
    return f;
  }
  std::vector<const store::InferencePointResult*> points;  // the timings at (L, batch), by repeat
  std::string failed;
  for (const auto& p : m.points) {
    if (p.spec.seq_len != c.seq_len || p.spec.batch != c.batch) continue;
    if (!p.error.empty()) failed = p.error;
    else points.push_back(&p);
  }
  std::sort(points.begin(), points.end(), [](const auto* a, const auto* b) { return a->spec.repeat < b->spec.repeat; });
  const std::string run = "inference run " + std::to_string(m.run_id);
  if (points.empty()) {
    f.problem = failed.empty() ? g.group + "'s " + run + " has no point at " + where_text(c)
                               : g.group + "'s point at " + where_text(c) + " failed in " + run + " (" + failed + ")";
    return f;
  }
  for (const auto* point : points) {
    const auto& mem = point->memory;
    const double tps = phase_rate(*point, c.phase);
    const double memory = static_cast<double>(mem.weights + mem.kv_cache + mem.gss_state + mem.activations);
    if (!(tps > 0.0) || !(memory > 0.0)) {
      f.problem = g.group + "'s point at " + where_text(c) + " in " + run + " has no " + c.phase + " tokens/s or memory";
      return f;
    }
    f.tokens_per_s.push_back(tps);
    f.memory.push_back(memory);
    f.peak.push_back(static_cast<double>(mem.peak));
    if (c.phase == "decode") {
      const double rse = median_rse(point->decode_ms);
      if (std::isfinite(rse) && !(f.timing_rse >= rse)) f.timing_rse = rse;
    }
  }
  return f;
}

// Figures per group, each read once per row.
class FigureCache {
 public:
  FigureCache(const Claim& c, const Study& study, store::Store& store) : c_(c), study_(study), store_(store) {}
  const Figures& of(const GroupReport& g) {
    auto it = cache_.find(g.group);
    if (it == cache_.end()) it = cache_.emplace(g.group, read_figures(c_, g, study_, store_)).first;
    return it->second;
  }

 private:
  const Claim& c_;
  const Study& study_;
  store::Store& store_;
  std::map<std::string, Figures> cache_;
};

LogFit fit_baseline(const std::vector<BaselineRun>& pool) {
  LogFit fit;
  std::vector<std::pair<double, double>> xy;
  std::map<int64_t, const GroupReport*> sizes;
  for (const auto& r : pool) {
    if (!(r.value > 0.0) || r.group->n_params <= 0) continue;
    xy.emplace_back(std::log(static_cast<double>(r.group->n_params)), std::log(r.value));
    sizes.emplace(r.group->n_params, r.group);  // the first group of each size, in the report's order
  }
  for (const auto& [n, g] : sizes) fit.sizes.emplace_back(static_cast<double>(n), g);
  if (fit.sizes.size() < 3) return fit;
  double mx = 0, my = 0;
  for (const auto& [x, y] : xy) mx += x, my += y;
  mx /= static_cast<double>(xy.size()), my /= static_cast<double>(xy.size());
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : xy) sxx += (x - mx) * (x - mx), sxy += (x - mx) * (y - my);
  fit.b = sxy / sxx;
  fit.a = my - fit.b * mx;
  fit.ok = std::isfinite(fit.b) && fit.b != 0.0;
  return fit;
}

// log-log linear between two sizes' figures at weight w of the second.
double log_lerp(double lo, double hi, double w) { return std::exp((1.0 - w) * std::log(lo) + w * std::log(hi)); }

// Why a replica found no baseline, and what to train.
std::string no_match_text(const Claim& c, double h, const std::vector<BaselineRun>& pool, const LogFit& fit) {
  const std::string m = c.metric.text;
  if (pool.empty()) return "no finished baseline run has " + m + ": train the baseline (" + c.baseline_text + ")";
  const BaselineRun* nearest = &pool.front();
  double lo = pool.front().value, hi = lo;
  for (const auto& r : pool) {
    if (std::fabs(r.value - h) < std::fabs(nearest->value - h)) nearest = &r;
    lo = std::min(lo, r.value), hi = std::max(hi, r.value);
  }
  std::string s = "no baseline run within " + core::format_number(c.tolerance) + " of " + m + " " + num(h) + " (nearest: " +
                  nearest->group->group + " seed " + std::to_string(nearest->seed) + " at " + num(nearest->value) + ")";
  const bool lower = lower_is_better(c.metric);
  const bool better_than_all = lower ? h < lo : h > hi, worse_than_all = lower ? h > hi : h < lo;
  const std::string size = better_than_all ? "a larger baseline (every one trained is worse)"
                           : worse_than_all ? "a smaller baseline (every one trained is better)"
                                            : "a baseline size between those trained";
  if (fit.sizes.size() < 3)
    return s + ": train " + size + ", or baselines at 3 or more sizes for a fitted curve (" +
           std::to_string(fit.sizes.size()) + " now)";
  if (!fit.ok) return s + "; the baseline's fitted curve is flat in parameters: train " + size;
  const double n = std::exp((std::log(h) - fit.a) / fit.b);
  return s + "; the baseline's fitted curve reaches it at " + sci(n) + " parameters, outside the sizes trained (" +
         sci(fit.sizes.front().first) + " to " + sci(fit.sizes.back().first) + "): train " + size;
}

// The closest baseline run within the tolerance; else the fitted curve inside the sizes trained.
Match match_replica(const Claim& c, double h, const std::vector<BaselineRun>& pool, const LogFit& fit, FigureCache& figs) {
  Match out;
  const BaselineRun* best = nullptr;
  for (const auto& r : pool)
    if (std::fabs(r.value - h) <= c.tolerance * (1.0 + 1e-12) && (!best || std::fabs(r.value - h) < std::fabs(best->value - h)))
      best = &r;
  if (best) {
    out.value = best->value;
    out.figures = figs.of(*best->group);
    out.problem = out.figures.problem;
    out.unmeasured = !out.problem.empty();
    out.how = "matched by measured runs: " + best->group->group + " seed " + std::to_string(best->seed) + ", " +
              c.metric.text + " " + num(best->value) + " vs " + num(h);
    return out;
  }
  const double n = fit.ok && h > 0 ? std::exp((std::log(h) - fit.a) / fit.b) : kNoValue;
  if (!std::isfinite(n) || n < fit.sizes.front().first * (1 - 1e-12) || n > fit.sizes.back().first * (1 + 1e-12)) {
    out.problem = no_match_text(c, h, pool, fit);
    return out;
  }
  size_t hi = 0;
  while (hi + 1 < fit.sizes.size() && fit.sizes[hi].first < n) ++hi;
  const size_t lo = hi > 0 && fit.sizes[hi].first > n ? hi - 1 : hi;
  const auto& [n_lo, g_lo] = fit.sizes[lo];
  const auto& [n_hi, g_hi] = fit.sizes[hi];
  const Figures &a = figs.of(*g_lo), &b = figs.of(*g_hi);
  out.value = h;  // the curve's value at n by construction
  out.how = "matched by fitted curve at " + sci(n) + " params (between " + sci(n_lo) + " (" + g_lo->group + ") and " +
            sci(n_hi) + " (" + g_hi->group + "))";
  out.problem = !a.problem.empty() ? a.problem : b.problem;
  out.unmeasured = !out.problem.empty();
  if (!out.problem.empty()) return out;
  const double w = n_hi > n_lo ? (std::log(n) - std::log(n_lo)) / (std::log(n_hi) - std::log(n_lo)) : 0.0;
  // Timing by timing: the i-th timing of each size (both were measured in the same repeat).
  for (std::size_t i = 0; i < std::min(a.timings(), b.timings()); ++i) {
    out.figures.tokens_per_s.push_back(log_lerp(a.tokens_per_s[i], b.tokens_per_s[i], w));
    out.figures.memory.push_back(log_lerp(a.memory[i], b.memory[i], w));
    out.figures.peak.push_back(a.peak[i] > 0 && b.peak[i] > 0 ? log_lerp(a.peak[i], b.peak[i], w) : kNoValue);
  }
  out.figures.timing_rse = std::max(a.timing_rse, b.timing_rse);
  return out;
}

// One judged ratio, per replica j and timing i: x_ji = log(ratio / threshold) (throughput) or
// log(threshold / ratio) (memory), so that the claimed side is x > 0. Its mean's standard error
// counts both sources of variation (docs/report.md, Efficiency): the timings (y_i, the mean over
// the replicas of timing i: R - 1 degrees of freedom) and the replicas' matches (x_j, the mean
// over the timings of replica j: n - 1), combined as Welch-Satterthwaite. Fewer than 3 timings:
// no test.
struct Component {
  std::string name;
  double threshold = 0.0;
  bool at_least = true;
  std::size_t timings = 0, replicas = 0;
  double mean = kNoValue, se = kNoValue, df = kNoValue, low = kNoValue, high = kNoValue;
  double sd_timings = kNoValue, sd_replicas = kNoValue;
  double p = kNoValue;
  int side = 0;
};

double sample_var(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double m = 0.0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double ss = 0.0;
  for (double x : v) ss += (x - m) * (x - m);
  return ss / static_cast<double>(v.size() - 1);
}

Component judge(const std::string& name, const std::vector<std::vector<double>>& ratios, double threshold, bool at_least) {
  Component k;
  k.name = name, k.threshold = threshold, k.at_least = at_least;
  k.replicas = ratios.size();
  k.timings = ratios.empty() ? 0 : ratios.front().size();
  for (const auto& r : ratios) k.timings = std::min(k.timings, r.size());
  if (k.replicas == 0 || k.timings == 0) return k;
  const double sign = at_least ? 1.0 : -1.0;
  std::vector<double> xj(k.replicas, 0.0), yi(k.timings, 0.0);
  double sum = 0.0;
  for (std::size_t j = 0; j < k.replicas; ++j)
    for (std::size_t i = 0; i < k.timings; ++i) {
      const double x = sign * std::log(ratios[j][i] / threshold);
      xj[j] += x / static_cast<double>(k.timings);
      yi[i] += x / static_cast<double>(k.replicas);
      sum += x;
    }
  k.mean = sum / static_cast<double>(k.replicas * k.timings);
  k.side = k.mean > 0 ? 1 : k.mean < 0 ? -1 : 0;
  const double vt = sample_var(yi), vr = sample_var(xj);
  k.sd_timings = std::sqrt(vt), k.sd_replicas = std::sqrt(vr);
  if (k.timings < kMinReplicasForVerdict) return k;  // a ratio timed once or twice: no test
  const double at = vt / static_cast<double>(k.timings), ar = vr / static_cast<double>(k.replicas);
  k.se = std::sqrt(at + ar);
  double denom = at * at / static_cast<double>(k.timings - 1);
  if (k.replicas >= 2) denom += ar * ar / static_cast<double>(k.replicas - 1);
  k.df = denom > 0.0 ? (at + ar) * (at + ar) / denom : static_cast<double>(k.timings - 1);
  if (k.se == 0.0) {
    k.p = k.mean == 0.0 ? 1.0 : 0.0;
    k.low = k.high = k.mean;
    return k;
  }
  k.p = two_sided_p(k.mean / k.se, k.df);
  const double half = student_t_quantile(0.975, k.df) * k.se;
  k.low = k.mean - half, k.high = k.mean + half;
  return k;
}

// "throughput ratio: geometric mean 1.2390 [1.2010, 1.2780], claimed at least 1".
std::string component_text(const Component& k) {
  const double sign = k.at_least ? 1.0 : -1.0, base = std::log(k.threshold);
  auto ratio = [&](double x) { return std::exp(base + sign * x); };
  std::string ci;
  if (std::isfinite(k.low)) ci = " " + interval(std::min(ratio(k.low), ratio(k.high)), std::max(ratio(k.low), ratio(k.high)));
  return k.name + ": geometric mean " + num(ratio(k.mean)) + ci + " over " + std::to_string(k.timings) + " timing" +
         (k.timings == 1 ? "" : "s") + " x " + std::to_string(k.replicas) + " replicas, claimed " +
         (k.at_least ? "at least " : "at most ") + core::format_number(k.threshold);
}

Measured measured(std::string label, std::vector<double> values, const std::vector<int64_t>& seeds) {
  Measured m;
  m.label = std::move(label);
  m.stats = summarize(values);
  m.values = std::move(values);
  m.seeds = seeds;
  return m;
}

void add_reason(std::string& reason, const std::string& part) {
  if (!part.empty()) reason += (reason.empty() ? "" : "; ") + part;
}

// Every replica of the hybrid: its quality, its match and the ratios of the two models' figures
// (NaN where it has none), and what stops the row from being judged.
struct Replicas {
  std::vector<double> quality, matched, thr, mem, peak;  // per replica: geometric means over the timings
  std::vector<std::vector<double>> thr_t, mem_t;           // per replica, per timing (repeat order)
  std::vector<double> noise;  // the decode timings' noise on the log throughput ratio (1.96 x SE)
  std::vector<int64_t> seeds;
  std::vector<std::string> problems, hows;
  bool unmeasured = false;  // a model lacks the inference point: `pha bench inference` fixes it
};

Replicas match_replicas(const Claim& c, const GroupReport& g, const std::vector<const GroupReport*>& baselines,
                        FigureCache& figs, store::Store& store) {
  const bool lower = lower_is_better(c.metric);
  std::vector<BaselineRun> pool;
  for (const GroupReport* b : baselines)
    for (const Replica& r : b->replicas) {
      const double v = replica_value(store, r.run_id, c.metric, false, lower);
      if (std::isfinite(v)) pool.push_back({b, r.seed, v});
    }
  const LogFit fit = fit_baseline(pool);
  const Figures& own = figs.of(g);
  Replicas out;
  out.unmeasured = !own.problem.empty();
  if (out.unmeasured) out.problems.push_back(own.problem);
  for (const Replica& r : g.replicas) {
    const double h = replica_value(store, r.run_id, c.metric, false, lower);
    const Match m = std::isfinite(h) ? match_replica(c, h, pool, fit, figs) : Match{};
    const bool ok = std::isfinite(h) && own.problem.empty() && m.problem.empty();
    out.seeds.push_back(r.seed);
    out.quality.push_back(h);
    out.matched.push_back(std::isfinite(h) ? m.value : kNoValue);
    // The i-th timing of the hybrid against the i-th of its match (measured in the same repeat).
    std::vector<double> thr, mem, peak;
    for (std::size_t i = 0; ok && i < std::min(own.timings(), m.figures.timings()); ++i) {
      thr.push_back(own.tokens_per_s[i] / m.figures.tokens_per_s[i]);
      mem.push_back(own.memory[i] / m.figures.memory[i]);
      if (own.peak[i] > 0 && m.figures.peak[i] > 0) peak.push_back(own.peak[i] / m.figures.peak[i]);
    }
    const auto geo = [](const std::vector<double>& v) {
      if (v.empty()) return kNoValue;
      double l = 0.0;
      for (double x : v) l += std::log(x);
      return std::exp(l / static_cast<double>(v.size()));
    };
    out.thr.push_back(ok ? geo(thr) : kNoValue);
    out.mem.push_back(ok ? geo(mem) : kNoValue);
    out.peak.push_back(ok ? geo(peak) : kNoValue);
    if (ok) out.thr_t.push_back(thr), out.mem_t.push_back(mem);
    out.noise.push_back(ok ? 1.96 * std::hypot(own.timing_rse, m.figures.timing_rse) : kNoValue);
    if (!std::isfinite(h)) continue;
    const std::string seed = "seed " + std::to_string(r.seed) + ": ";
    // A model without figures is said once; a replica without a match names its seed.
    const std::string problem = m.problem.empty() ? "" : (m.unmeasured ? "" : seed) + m.problem;
    if (!problem.empty() && std::find(out.problems.begin(), out.problems.end(), problem) == out.problems.end())
      out.problems.push_back(problem);
    out.unmeasured = out.unmeasured || m.unmeasured;
    if (!m.how.empty()) out.hows.push_back(seed + m.how);
  }
  return out;
}

// The test over n replicas and R timings: each threshold's t test of the mean log ratio (its
// standard error from both the timings and the replicas, judge); every ratio on its claimed
// side: the larger p (an intersection-union test); a ratio on the other side refutes the claim:
// the smallest such p times the ratios tested (Bonferroni). Fewer than 3 timings: no p.
std::vector<Component> test_ratios(const Claim& c, const Replicas& v, std::size_t n, ClaimRow& row) {
  std::vector<Component> parts;
  if (c.min_throughput_ratio > 0) parts.push_back(judge("throughput ratio", v.thr_t, c.min_throughput_ratio, true));
  if (c.max_memory_ratio > 0) parts.push_back(judge("memory ratio", v.mem_t, c.max_memory_ratio, false));
  const std::size_t timings = parts.empty() ? 0 : parts.front().timings;
  row.test.text = "t test of the mean log ratio against its threshold over " + std::to_string(timings) + " timing" +
                  (timings == 1 ? "" : "s") + " per model x " + std::to_string(n) + " replicas";
  if (timings < kMinReplicasForVerdict) return parts;  // reported as measured, never with a p-value
  const bool all_claimed = std::all_of(parts.begin(), parts.end(), [](const Component& k) { return k.side > 0; });
  double p_other = kNoValue;
  for (const auto& k : parts)
    if (k.side < 0 && !(p_other <= k.p)) p_other = k.p;
  if (all_claimed || std::isnan(p_other)) {
    row.p = 0.0;
    for (const auto& k : parts) row.p = std::max(row.p, k.p);
    row.test.direction = all_claimed ? 1 : 0;
  } else {
    row.p = std::min(1.0, static_cast<double>(parts.size()) * p_other);
    row.test.direction = -1;
  }
  row.test.text += " (standard error from the timings' and the replicas' spreads, Welch-Satterthwaite df " +
                   num(parts.front().df) + ")";
  if (parts.size() == 2)
    row.test.text += " (p: " + p_text(parts[0].p) + " and " + p_text(parts[1].p) +
                     "; the larger when both lie on the claimed side, else twice the smaller of those on the other)";
  row.test.df = parts.front().df;
  return parts;
}

// What the figures are and how far to trust them: memory's definition, the peak RSS, the
// matches, the one timing per model and the decode timing's own noise.
void add_notes(const Claim& c, const Replicas& v, const std::vector<Component>& parts, ClaimRow& row) {
  for (const auto& k : parts) add_reason(row.reason, component_text(k));
  add_reason(row.reason, "memory = weights + KV cache + GSS state + activations, i.e. the peak RSS minus the process "
                         "baseline (the program and LibTorch)");
  const Stats ps = summarize(v.peak);
  if (ps.n) add_reason(row.reason, "peak RSS ratio " + num(ps.mean) + " (reported, not judged)");
  for (const auto& h : v.hows) add_reason(row.reason, h);
  const std::size_t timings = parts.empty() ? 0 : parts.front().timings;
  if (timings < kMinReplicasForVerdict) {
    add_reason(row.reason, "measured " + std::string(timings == 1 ? "once" : "twice") + " per model: a ratio timed " +
                               (timings == 1 ? "once" : "twice") + " has no timing noise to test against, so it is "
                               "reported as measured, with no p-value; time each model 3 or more times, interleaved "
                               "with its baseline (pha bench inference --project DIR --repeats 3)");
  } else {
    std::string sd;
    for (const auto& k : parts)
      sd += (sd.empty() ? "" : "; ") + k.name + " log sd over the timings " + num(k.sd_timings) + ", over the replicas " +
            num(k.sd_replicas);
    add_reason(row.reason, "each model timed " + std::to_string(timings) + " times in fresh workers, interleaved with "
                           "its baseline; the interval counts the timings' spread and the replicas' matches (" + sd + ")");
  }
  if (c.min_throughput_ratio <= 0) return;
  const Stats ns = summarize(v.noise);
  if (c.phase == "decode" && ns.n && std::fabs(parts.front().mean) < ns.mean) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", 100.0 * (std::exp(ns.mean) - 1.0));
    add_reason(row.reason, "the throughput ratio is within the decode timings' own noise of its threshold (±" +
                               std::string(pct) + "%, the median decode step's standard error)");
  }
}

}  // namespace

ClaimRow efficiency_row(const Claim& c, const GroupReport& g, const std::vector<const GroupReport*>& baselines,
                        const Study& study, store::Store& store) {
  ClaimRow row;
  row.label = (g.grid_point.empty() ? g.group : g.grid_point) + " at " + where_text(c) + ", " + c.phase;
  row.effect = row.effect_low = row.effect_high = kNoValue;
  FigureCache figs(c, study, store);
  const Replicas v = match_replicas(c, g, baselines, figs, store);
  const std::string judged = "", shown = " (reported, not judged)";
  row.measured = {measured(g.group + " " + c.metric.text, v.quality, v.seeds),
                  measured("matched baseline " + c.metric.text, v.matched, v.seeds),
                  measured("throughput ratio (" + c.phase + " tokens/s at " + where_text(c) + ", " + g.group +
                               " / matched baseline)" + (c.min_throughput_ratio > 0 ? judged : shown),
                           v.thr, v.seeds),
                  measured("memory ratio (weights + KV cache + GSS state + activations)" +
                               (c.max_memory_ratio > 0 ? judged : shown),
                           v.mem, v.seeds),
                  measured("peak RSS ratio" + shown, v.peak, v.seeds)};
  if (!v.problems.empty()) {  // judged on every replica or not at all: a subset would be chosen by what matched
    row.verdict = Verdict::Inconclusive;
    for (const auto& p : v.problems) add_reason(row.reason, p);
    if (v.unmeasured) add_reason(row.reason, "measure the models: run " + bench_command(c, store));
    for (const auto& h : v.hows) add_reason(row.reason, h);
    return row;
  }
  const std::size_t n = row.measured[0].stats.n;
  if (n < kMinReplicasForVerdict) {
    row.verdict = Verdict::TooFewReplicas;
    row.reason = too_few(g.group, n);
    if (n == 1) row.reason += ": one replica gives one pair of ratios and no interval over replicas";
    for (const auto& h : v.hows) add_reason(row.reason, h);
    return row;
  }
  add_notes(c, v, test_ratios(c, v, n, row), row);
  return row;
}

}  // namespace pha::analysis::detail
