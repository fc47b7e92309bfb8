// build_report: which runs are the replicas of each planned group, their metrics, the length
// and OOD sweeps, the notes; then each claim (report_claims.cpp).
#include "analysis/report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <set>

#include "analysis/internal/report_internal.h"
#include "core/error.h"
#include "store/store.h"
#include "core/numbers.h"

namespace pha::analysis {

using nlohmann::json;

namespace {

using core::kNaN;

// Fields present in both configs whose values differ (up to 3): a replica trained with settings
// project.json no longer gives (an edited file, `pha train --steps`). A key only one side has
// is not a difference: a newer program records settings an older one did not know.
void differences(const json& a, const json& b, const std::string& path, std::vector<std::string>& out) {
  if (out.size() >= 3) return;
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it)
      if (b.contains(it.key())) differences(it.value(), b.at(it.key()), path + "." + it.key(), out);
    return;
  }
  if (a != b) out.push_back(path.substr(1) + " " + a.dump() + " (project.json: " + b.dump() + ")");
}

std::vector<std::string> metric_keys_of(const Study& study) {
  if (!study.is_task) return {"train/loss", "val/loss", "val/ppl", "val/bpb", "test/ppl", "test/bpb"};
  std::vector<std::string> keys = {"train/loss"};
  for (const auto& set : study.test_sets) keys.push_back("test/" + set + "/accuracy");
  return keys;
}

// Accuracy rows of one sweep per replica, at the run's last step with such rows: x -> value.
// `x_of` maps an eval row to its x (NaN: not part of this sweep).
template <typename XOf>
std::map<double, double> sweep_of(const std::vector<store::EvalRow>& rows, XOf x_of) {
  int64_t last = -1;
  for (const auto& r : rows)
    if (r.metric == "accuracy" && !std::isnan(x_of(r))) last = std::max(last, r.step);
  std::map<double, double> out;
  for (const auto& r : rows)
    if (r.metric == "accuracy" && r.step == last && !std::isnan(x_of(r))) out[x_of(r)] = r.value;
  return out;
}

// "<task>_bits_p0.3" -> 0.3 (the OOD sweep's set names); NaN for other sets.
double ood_p(const store::EvalRow& r) {
  const size_t at = r.task.rfind("_bits_p");
  if (at == std::string::npos) return kNaN;
  char* end = nullptr;
  const std::string tail = r.task.substr(at + 7);
  const double p = std::strtod(tail.c_str(), &end);
  return end && *end == '\0' && !tail.empty() ? p : kNaN;
}

SweepTable sweep_table(const Report& report, store::Store& store, bool length) {
  SweepTable t;
  t.title = length ? "Accuracy against sequence length" : "Accuracy against the input Bernoulli p";
  t.x_label = length ? "T" : "p";
  std::vector<std::vector<std::map<double, double>>> per_group;  // [group][replica] x -> value
  std::set<double> xs;
  for (const auto& g : report.groups) {
    std::vector<std::map<double, double>> reps;
    for (const auto& r : g.replicas) {
      const auto rows = store.evals(r.run_id);
      reps.push_back(length ? sweep_of(rows, [](const store::EvalRow& e) {
                                return e.task == "length" ? static_cast<double>(e.seq_len) : kNaN;
                              })
                            : sweep_of(rows, ood_p));
      for (const auto& [x, v] : reps.back()) xs.insert(x);
    }
    per_group.push_back(std::move(reps));
  }
  t.xs.assign(xs.begin(), xs.end());
  for (size_t gi = 0; gi < report.groups.size(); ++gi) {
    std::vector<Stats> row;
    bool any = false;
    for (double x : t.xs) {
      std::vector<double> values;
      for (const auto& rep : per_group[gi]) values.push_back(rep.count(x) ? rep.at(x) : kNaN);
      row.push_back(summarize(values));
      any = any || row.back().n > 0;
    }
    if (!any) continue;  // a group without this sweep is left out of the table
    t.groups.push_back(report.groups[gi].group);
    t.cells.push_back(std::move(row));
  }
  if (t.groups.empty()) t.xs.clear();
  return t;
}

// The newest finished run of each planned (group, seed); what is missing, and settings that
// differ from the plan, become notes.
void collect_groups(const Study& study, store::Store& store, Report& report) {
  store::RunListQuery q;
  q.project = study.project;
  q.kind = store::RunKind::Train;
  q.include_config = true;
  q.newest_first = false;
  const auto runs = store.list_runs(q);
  std::map<std::string, size_t> index;
  for (const StudyRun& sr : study.runs) {
    auto [it, fresh] = index.emplace(sr.group, report.groups.size());
    if (fresh) {
      GroupReport g;
      g.group = sr.group, g.entry = sr.entry, g.grid_point = sr.grid_point, g.variant = sr.variant;
      g.family = sr.family, g.n_layers = sr.n_layers;
      g.tune_point = sr.tune_point, g.train_flops_per_token = sr.train_flops_per_token;
      g.confirmation = sr.confirmation;
      report.groups.push_back(g);
    }
    GroupReport& g = report.groups[it->second];
    g.seeds.push_back(sr.seed);
    const store::RunListEntry* finished = nullptr;
    const store::RunListEntry* newest = nullptr;
    for (const auto& e : runs) {
      if (e.run.group != sr.group || e.run.seed != sr.seed) continue;
      newest = &e;
      if (e.run.status == store::RunStatus::Finished) finished = &e;
    }
    const std::string seed = "seed " + std::to_string(sr.seed);
    if (!finished) {
      const bool failed = newest && (newest->run.status == store::RunStatus::Failed ||
                                     newest->run.status == store::RunStatus::Diverged);
      (failed ? g.failed : g.pending) += 1;
      g.missing.push_back(seed + (newest ? std::string(": ") + store::to_string(newest->run.status) + " (run " +
                                               std::to_string(newest->run.id) + ")"
                                         : ": not trained yet"));
      continue;
    }
    g.replicas.push_back({finished->run.id, sr.seed, finished->run.name});
    if (g.n_params == 0) g.n_params = finished->run.n_params;
    std::vector<std::string> diff;
    const json stored = json::parse(finished->run.config_json, nullptr, false);
    if (!stored.is_discarded())
      for (const char* section : {"model", "training", "data"})
        if (stored.contains(section) && sr.config.contains(section))
          differences(stored[section], sr.config[section], std::string(".") + section, diff);
    if (!diff.empty()) {
      std::string text;
      for (const auto& d : diff) text += (text.empty() ? "" : "; ") + d;
      report.notes.push_back("run " + std::to_string(finished->run.id) + " (" + finished->run.name +
                             ") was trained with other settings than project.json gives now: " + text);
    }
  }
  for (const auto& g : report.groups)
    if (!g.missing.empty()) {
      std::string text;
      for (const auto& m : g.missing) text += (text.empty() ? "" : ", ") + m;
      report.notes.push_back(g.group + ": " + std::to_string(g.replicas.size()) + " of " +
                             std::to_string(g.seeds.size()) + " replicas finished (" + text + ")");
    }
}

// Each entry's tuning table at each grid point, in project order.
std::vector<TuningTable> tables_of(const Study& study, const Report& report, store::Store& store) {
  std::vector<TuningTable> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& g : report.groups)
    if (seen.insert({g.entry, g.grid_point}).second) out.push_back(tuning_table(study, report, g.entry, g.grid_point, store));
  return out;
}

// What the design says of each claim (report_design.cpp): the tests it plans, whether it can pass
// at its seeds, what changed after the registration, and the baseline checks of its groups.
void design_marks(const Study& study, store::Store& store, Report& report) {
  report.registration = registration_report(study, store);
  report.shape_warnings = baseline_checks(study);
  for (auto& w : tuning_curve_checks(study, report)) report.shape_warnings.push_back(std::move(w));
  std::size_t m_primary = 0, m_secondary = 0;
  for (auto& c : report.claims) {
    c.planned_tests = planned_tests(study, c.claim);
    (c.claim.primary ? m_primary : m_secondary) += c.planned_tests;
  }
  for (std::size_t i = 0; i < report.claims.size(); ++i) {
    ClaimReport& c = report.claims[i];
    c.underpowered = design_power(study, c.claim, c.claim.primary ? m_primary : m_secondary).underpowered;
    c.changed_after_data = claim_changes(study, store, i);
    const std::vector<std::string> names = {c.claim.better, c.claim.than, c.claim.run};
    for (const auto& w : report.shape_warnings)
      for (const auto& g : w.groups)
        if (std::find(names.begin(), names.end(), g) != names.end() ||
            std::find(c.claim.baseline.begin(), c.claim.baseline.end(), g) != c.claim.baseline.end()) {
          c.shape_warnings.push_back(w.text);
          break;
        }
  }
}

}  // namespace

std::vector<TuningTable> tuning_tables(const Study& study, store::Store& store) {
  if (!study.tune.enabled) return {};
  Report report;
  collect_groups(study, store, report);
  return tables_of(study, report, store);
}

std::string confirmation_group_of(const std::string& chosen_group) { return chosen_group + ",confirm"; }

Report build_report(const Study& study, store::Store& store) {
  Report report;
  report.project = study.project;
  report.description = study.description;
  report.store_path = store.path();
  report.generated_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  report.is_task = study.is_task;
  if (study.is_task && !study.test_sets.empty()) report.accuracy_key = "test/" + study.test_sets.front() + "/accuracy";
  report.metric_keys = metric_keys_of(study);
  collect_groups(study, store, report);
  std::map<int64_t, double> tokens;  // run -> tokens of its last train/loss point
  for (const auto& [run, point] : store.last_points("train/loss")) tokens[run] = static_cast<double>(point.tokens);
  for (auto& g : report.groups) {
    double sum = 0.0;
    int n = 0;
    for (const auto& r : g.replicas)
      if (tokens.count(r.run_id)) sum += tokens[r.run_id], ++n;
    g.tokens = n ? sum / n : kNaN;
  }
  for (auto& g : report.groups)
    for (const auto& key : report.metric_keys) {
      std::vector<double> values;
      MetricRef m;
      m.text = m.key = key;
      for (const auto& r : g.replicas) values.push_back(detail::replica_value(store, r.run_id, m, false, true));
      g.metrics[key] = summarize(values);
    }
  if (study.is_task) {
    report.length = sweep_table(report, store, true);
    report.ood = sweep_table(report, store, false);
  }
  if (study.tune.enabled) report.tuning = tables_of(study, report, store);
  report.tuning_maximize = study.tune.maximize;
  if (study.scaling.enabled) report.scaling = scaling_report(study, report, store);
  for (const Claim& c : study.claims) report.claims.push_back(evaluate_claim(c, study, report, store));
  design_marks(study, store, report);
  correct_report(report, study.settings);
  return report;
}

namespace detail {

double replica_value(store::Store& store, int64_t run_id, const MetricRef& metric, bool best, bool minimize) {
  if (metric.source == MetricRef::Source::Summary) {
    const auto s = store.summary(run_id, metric.key);
    if (!s || s->count == 0) return kNaN;
    return best ? (minimize ? s->min : s->max) : s->last;
  }
  int64_t step = -1;
  std::set<int64_t> lengths;
  const auto rows = store.evals(run_id);
  for (const auto& r : rows)
    if (r.task == metric.set && r.metric == metric.metric && (metric.seq_len < 0 || r.seq_len == metric.seq_len))
      step = std::max(step, r.step);
  double value = kNaN;
  for (const auto& r : rows)
    if (r.step == step && r.task == metric.set && r.metric == metric.metric &&
        (metric.seq_len < 0 || r.seq_len == metric.seq_len)) {
      lengths.insert(r.seq_len);
      value = r.value;
    }
  return lengths.size() == 1 ? value : kNaN;  // several T without "@T": ambiguous
}

}  // namespace detail

// The report's number formats (analysis/report_format.h); the text formats are in report_text.cpp.
namespace {
// Decimals by magnitude: four below 10 (losses, bpb, accuracies), two below 1,000 (perplexities),
// one below 100,000, none above (never an exponent in a table).
int decimals_for(double v) {
  const double a = std::fabs(v);
  return a < 10.0 ? 4 : a < 1000.0 ? 2 : a < 1e5 ? 1 : 0;
}

std::string fixed(double v, int decimals) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}
}  // namespace

std::string num(double v) { return fixed(v, decimals_for(v)); }

// The spread is printed to the mean's decimals ("11.19 ± 0.18", not "11.19 ± 0.1800").
std::string mean_std(const Stats& s) {
  if (s.n == 0) return "- (n=0)";
  const int decimals = decimals_for(s.mean);
  std::string out = fixed(s.mean, decimals);
  if (s.n >= 2) out += " ± " + fixed(s.std, decimals);
  out += " (n=" + std::to_string(s.n) + ")";
  return out;
}

std::string local_time(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  char buf[32];
  std::tm local{};
  localtime_r(&t, &local);  // not std::localtime: its one static buffer is shared by every thread
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &local);
  return buf;
}

std::string interval(double low, double high) {
  if (std::isnan(low) || std::isnan(high)) return "";
  return "[" + num(low) + ", " + num(high) + "]";
}

}  // namespace pha::analysis
