// What a study's design says before any run (docs/report.md, "Power before compute",
// "Registration", "Baseline checks"): the tests each claim brings to its family, whether a claim
// can pass the correction at its planned seeds at all, baseline shapes nobody would train, and
// the registration of the claims and design with what changed after the data. `pha plan` and the
// report call the same functions.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"
#include "store/registration_store.h"

namespace pha::analysis {

using nlohmann::json;

namespace {

// The planned groups a claim's name stands for (the group itself, or every group of a variants
// entry), confirmation groups left out: they are planned from results, not by the design.
std::vector<const StudyRun*> named_groups(const Study& study, const std::string& name) {
  std::vector<const StudyRun*> out;
  std::set<std::string> seen;
  for (const auto& r : study.runs)
    if (r.group == name && seen.insert(r.group).second) return {&r};
  for (const auto& r : study.runs)
    if (r.entry == name && !r.confirmation && seen.insert(r.group).second) out.push_back(&r);
  return out;
}

// The grid points a name's rows stand for (with a tune section a variants entry is compared at
// its chosen setting: one row per grid point).
std::set<std::string> grid_points(const Study& study, const std::string& name) {
  std::set<std::string> out;
  for (const StudyRun* r : named_groups(study, name)) out.insert(r->grid_point);
  return out;
}

// Seeds per group the claim reads: the confirmation seeds when the tune section has them, else
// the fewest planned for any group it names.
std::size_t seeds_read(const Study& study, const std::vector<std::string>& names) {
  if (study.tune.enabled && !study.tune.confirm_seeds.empty()) return study.tune.confirm_seeds.size();
  std::size_t fewest = 0;
  for (const auto& name : names)
    for (const StudyRun* g : named_groups(study, name)) {
      std::size_t n = 0;
      for (const auto& r : study.runs) n += r.group == g->group ? 1 : 0;
      fewest = fewest == 0 ? n : std::min(fewest, n);
    }
  return fewest;
}

std::vector<std::string> names_of(const Claim& c) {
  switch (c.kind) {
    case ClaimKind::LowerIsBetter:
    case ClaimKind::HigherIsBetter: return {c.better, c.than};
    case ClaimKind::AccuracyAtParams: return {};
    default: return {c.run};
  }
}

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The step of Holm's procedure at which a p-value can first pass (1: the first step, at
// alpha / m): it needs step - 1 other tests to pass before it. 0 when it passes at none.
std::size_t holm_step(double p, double alpha, std::size_t m) {
  for (std::size_t j = 1; j <= m; ++j)
    if (p < alpha / static_cast<double>(m - j + 1)) return j;
  return 0;
}

// Leaf differences between a registered and a current JSON value ("training.steps: 280 -> 300").
std::string short_json(const json& v) {
  std::string s = v.is_null() ? "(absent)" : v.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

void json_changes(const json& before, const json& now, const std::string& path, std::vector<std::string>& out) {
  if (before.is_object() && now.is_object()) {
    std::set<std::string> keys;
    for (auto it = before.begin(); it != before.end(); ++it) keys.insert(it.key());
    for (auto it = now.begin(); it != now.end(); ++it) keys.insert(it.key());
    for (const auto& k : keys)
      json_changes(before.contains(k) ? before.at(k) : json(), now.contains(k) ? now.at(k) : json(),
                   path.empty() ? k : path + "." + k, out);
    return;
  }
  if (before.is_array() && now.is_array() && before.size() == now.size()) {
    for (std::size_t i = 0; i < before.size(); ++i) json_changes(before[i], now[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (before != now) out.push_back(path + ": " + short_json(before) + " -> " + short_json(now));
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::DoesNotHold: return "does not hold";
    case Verdict::Inconclusive: return "inconclusive at this scale";
    case Verdict::Mixed: return "mixed";
    case Verdict::TooFewReplicas: return "too few replicas";
    case Verdict::Equivalent: return "equivalent within the margin";
    case Verdict::SmallerThanEffect: return "smaller than the effect of interest";
  }
  return "";
}

std::string verdict_text(const Claim& c, Verdict v) {
  std::string s;
  switch (v) {
    case Verdict::Equivalent: s = "equivalent within ± " + core::format_number(c.smallest_effect); break;
    case Verdict::SmallerThanEffect: s = "smaller than " + margin_words(c); break;
    default: s = to_string(v);
  }
  const bool decided = v == Verdict::Holds || v == Verdict::DoesNotHold || v == Verdict::Equivalent ||
                       v == Verdict::SmallerThanEffect;
  return decided && !c.primary ? s + " (exploratory)" : s;
}

std::size_t planned_tests(const Study& study, const Claim& c) {
  std::size_t rows = 1;
  switch (c.kind) {
    case ClaimKind::LowerIsBetter:
    case ClaimKind::HigherIsBetter: {
      const std::set<std::string> a = grid_points(study, c.better), b = grid_points(study, c.than);
      std::size_t pairs = 0;
      if (a.size() == 1 && b.size() == 1) {
        pairs = 1;
      } else {
        for (const auto& p : a) pairs += b.count(p);
      }
      rows = pairs * std::max<std::size_t>(1, c.budgets.size());
      break;
    }
    case ClaimKind::AccuracyAtParams: rows = 1; break;
    default: rows = std::max<std::size_t>(1, named_groups(study, c.run).size());
  }
  const bool margin = c.smallest_effect > 0.0;
  return rows * (margin ? 3 : 1);
}

DesignPower design_power(const Study& study, const Claim& c, std::size_t m) {
  DesignPower out;
  m = std::max<std::size_t>(1, m);
  const double alpha = study.settings.alpha;
  const bool corrected = study.settings.correction != Correction::None;
  const double level = corrected ? alpha / static_cast<double>(m) : alpha;
  const std::string level_words =
      corrected ? "alpha / m = " + p_text(level) + " (Holm's first step, m = " + std::to_string(m) + ")" : "alpha = " + core::format_number(alpha);
  if (c.kind == ClaimKind::AccuracyAtParams) {
    // The seeds of each model the claim reads (its family at most max_params), all on one side:
    // the smallest score p a row can have.
    std::size_t n = 0;
    std::set<std::string> entries;
    for (const auto& r : study.runs)
      if (r.family == c.family && r.n_params > 0 && r.n_params <= c.max_params && !r.confirmation) entries.insert(r.entry);
    for (const auto& e : entries) {
      const std::size_t k = seeds_read(study, {e});
      n = n == 0 ? k : std::min(n, k);
    }
    out.seeds = n;
    if (n == 0) {
      out.note = "no planned model of the family with at most " + std::to_string(c.max_params) + " parameters";
      return out;
    }
    const double best = score_test_p(n, n);
    for (std::size_t k = 4; k <= 1000; ++k)
      if (score_test_p(k, k) < level) {
        out.seeds_needed = k;
        break;
      }
    out.note = "with " + plural(n, "seed", "seeds") + " per model the strongest result (every seed on one side) has score p " +
               p_text(best);
    const bool wilson = n >= 4;  // n/n's Wilson lower bound exceeds 1/2 from 4 seeds (3/3: 0.4385)
    if (wilson && best < level) return out;
    std::string why = !wilson ? "with " + plural(n, "seed", "seeds") + " per model even " + std::to_string(n) + " of " +
                                    std::to_string(n) + " cannot put Wilson's 95% interval above 1/2 (it needs 4)"
                              : "even " + std::to_string(n) + " of " + std::to_string(n) + " seeds on one side give score p " +
                                    p_text(best) + ", not below " + level_words;
    if (wilson && corrected) {
      const std::size_t step = holm_step(best, alpha, m);
      why += step == 0 ? ": it cannot pass at any step"
                       : ": it passes only if " + std::to_string(step - 1) + " of the other " + std::to_string(m - 1) +
                             " tests pass before it";
    }
    out.underpowered = "underpowered by design: " + why + "; " +
                       (out.seeds_needed ? std::to_string(out.seeds_needed) + " seeds per model would pass at Holm's first step"
                                         : "no number of seeds up to 1000 would");
    return out;
  }
  const std::size_t n = seeds_read(study, names_of(c));
  out.seeds = n;
  if (n == 0) return out;
  if (n < kMinReplicasForVerdict) {
    out.underpowered = "underpowered by design: " + plural(n, "seed", "seeds") + " per side; a verdict needs " +
                       std::to_string(kMinReplicasForVerdict) + " or more (the report will say \"too few replicas\")";
    out.seeds_needed = kMinReplicasForVerdict;
    return out;
  }
  if (c.kind == ClaimKind::Efficiency) {
    out.note = "tested on the timings' repeats and the seeds' matches (3 or more timings per model)";
    return out;
  }
  const double df = static_cast<double>(n - 1);
  const double k = (student_t_quantile(1.0 - level / 2.0, df) + student_t_quantile(study.settings.power, df)) /
                   std::sqrt(static_cast<double>(n));
  out.note = "with " + plural(n, "seed", "seeds") + " it detects (at " + level_words + ", " +
             core::format_number(100.0 * study.settings.power) + "% power) an effect of " + num(k) +
             " standard deviations of the per-seed difference";
  if (c.smallest_effect > 0.0)
    out.note += "; " + margin_words(c) + " is detectable when that standard deviation is at most " + num(c.smallest_effect / k);
  return out;
}

std::vector<ShapeWarning> baseline_checks(const Study& study) {
  std::vector<ShapeWarning> out;
  std::set<std::string> seen;
  for (const auto& r : study.runs) {
    // Narrower than 16, or than the model where it is narrower than 16 (one head as wide as d).
    if (r.head_dim <= 0 || r.head_dim >= std::min(16, r.d_model) || !seen.insert(r.entry).second) continue;
    const int heads = std::max(1, r.d_model / 16);
    out.push_back({{r.entry},
                   r.entry + ": attention head dimension " + std::to_string(r.head_dim) + " (d_model " +
                       std::to_string(r.d_model) + ", " + std::to_string(r.attention_heads) + " heads) is below " +
                       (r.d_model < 16 ? "the model's width " + std::to_string(r.d_model) : std::string("16")) +
                       ", a shape nobody trains; it handicaps the attention-heavy families most. "
                       "Use fewer heads (" + std::to_string(heads) + (heads == 1 ? " head" : " heads") + " of " +
                       std::to_string(r.d_model / heads) + ") or a wider model with fewer layers, by the same rule for "
                       "every family"});
  }
  // Comparisons between models of different sizes: the groups at each common grid point.
  std::set<std::string> pairs;
  for (const Claim& c : study.claims) {
    if (c.kind != ClaimKind::LowerIsBetter && c.kind != ClaimKind::HigherIsBetter) continue;
    for (const StudyRun* a : named_groups(study, c.better))
      for (const StudyRun* b : named_groups(study, c.than)) {
        if (a->grid_point != b->grid_point || a->n_params <= 0 || b->n_params <= 0) continue;
        const double big = static_cast<double>(std::max(a->n_params, b->n_params));
        const double apart = std::fabs(static_cast<double>(a->n_params - b->n_params)) / big;
        if (apart <= 0.03 || !pairs.insert(a->entry + "|" + b->entry).second) continue;
        out.push_back({{a->entry, b->entry},
                       a->entry + " (" + std::to_string(a->n_params) + " parameters) and " + b->entry + " (" +
                           std::to_string(b->n_params) + ") are " + core::format_number(std::round(1000.0 * apart) / 10.0) +
                           "% apart, more than 3%: a comparison at \"equal parameters\" needs them within 3% "
                           "(adjust d_ff or the GSS widths of the smaller one)"});
      }
  }
  return out;
}

std::vector<ShapeWarning> tuning_curve_checks(const Study& study, const Report& report) {
  std::vector<ShapeWarning> out;
  if (!study.tune.enabled || study.tune.axes.find(',') != std::string::npos) return out;
  const std::string key = study.tune.axes;
  for (const TuningTable& t : report.tuning) {
    struct Point {
      double x;
      const TuningSetting* s;
    };
    std::vector<Point> curve;
    for (const auto& s : t.settings) {
      const double x = detail::tune_point_value(s.tune_point, key);
      if (std::isfinite(x) && s.status == "ok" && s.select.n >= 2) curve.push_back({x, &s});
    }
    std::sort(curve.begin(), curve.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    for (std::size_t i = 1; i + 1 < curve.size(); ++i) {
      const Stats &l = curve[i - 1].s->select, &c = curve[i].s->select, &r = curve[i + 1].s->select;
      const double sign = study.tune.maximize ? -1.0 : 1.0;  // worse = larger loss, smaller accuracy
      const double dl = sign * (c.mean - l.mean), dr = sign * (c.mean - r.mean);
      auto se = [](const Stats& s) { return s.std / std::sqrt(static_cast<double>(s.n)); };
      const double nl = std::sqrt(se(c) * se(c) + se(l) * se(l)), nr = std::sqrt(se(c) * se(c) + se(r) * se(r));
      if (!(dl > 0.0 && dr > 0.0) || !(dl > nl || dr > nr)) continue;
      std::string values;
      for (const Point& p : curve) values += (values.empty() ? "" : ", ") + num(p.s->select.mean);
      out.push_back({{t.entry},
                     t.entry + (t.grid_point.empty() ? "" : " at " + t.grid_point) + ": its " + key + " curve (" + values +
                         ") has a bump at " + curve[i].s->tune_point + ", worse than both neighbours by more than one "
                         "standard error of the difference: a setting between two better ones points to an unstable "
                         "shape or too few seeds. Check the shape (head dimension, initialisation) and tune on more "
                         "seeds before trusting its choice"});
      break;
    }
  }
  return out;
}

RegistrationReport registration_report(const Study& study, store::Store& store) {
  RegistrationReport out;
  const auto r = store::registration(store, study.project);
  if (!r) {
    out.text = "Not registered: this store holds no registration of the project (runs made before registration "
               "existed); its claims and design may have been written after the data.";
    return out;
  }
  out.present = true;
  out.registered_at_ms = r->registered_at;
  out.hash = r->hash;
  out.runs_before = r->runs_before;
  out.first_run_ms = r->first_run_at;
  out.text = "Registered " + local_time(r->registered_at) + " (design sha256 " + r->hash.substr(0, 12) + ")";
  out.text += r->runs_before == 0 ? ", before the project's first run"
                                  : ", after " + plural(static_cast<std::size_t>(r->runs_before), "run", "runs") +
                                        " of the project already existed (the first created " + local_time(r->first_run_at) +
                                        "): those runs predate it";
  if (study.design.is_null()) return out;
  const json before = json::parse(r->design_json, nullptr, false);
  if (before.is_discarded()) {
    out.changes.push_back("the registered design cannot be read");
    return out;
  }
  json a = before, b = study.design;
  const json claims_before = a.value("claims", json::array()), claims_now = b.value("claims", json::array());
  a.erase("claims");
  b.erase("claims");
  json_changes(a, b, "", out.changes);
  for (std::size_t i = claims_now.size(); i < claims_before.size(); ++i)
    out.claims_removed.push_back("claims[" + std::to_string(i) + "] " + short_json(claims_before[i]));
  const std::size_t changed = out.changes.size() + out.claims_removed.size();
  out.text += changed == 0 ? "." : "; changed after data: " + plural(changed, "field", "fields") + " (below).";
  return out;
}

// Per claim: its changes against the registration (added after data, or its fields).
std::vector<std::string> claim_changes(const Study& study, store::Store& store, std::size_t index) {
  std::vector<std::string> out;
  const auto r = store::registration(store, study.project);
  if (!r || study.design.is_null()) return out;
  const json before = json::parse(r->design_json, nullptr, false);
  if (before.is_discarded()) return out;
  const json claims_before = before.value("claims", json::array()), claims_now = study.design.value("claims", json::array());
  if (index >= claims_now.size()) return out;
  if (index >= claims_before.size()) return {"added after data (not in the registration)"};
  json_changes(claims_before[index], claims_now[index], "", out);
  return out;
}

}  // namespace pha::analysis
