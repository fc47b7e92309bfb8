// project.json's "seeds" / "repeats" (each run becomes seeded replicas of one group), "claims"
// (analysis/claims.h), "scaling" and "report" (analysis/report.h, ScalingSpec and
// ReportSettings), the top-level keys of studies (docs/project-format.md).
#include "project/internal/project_replicas.h"

#include <algorithm>

#include "analysis/claims.h"
#include "analysis/report.h"
#include "core/error.h"
#include "core/limits.h"

namespace pha::project::detail {

using nlohmann::json;

// "seeds": [0, 1, 2] (the training seeds of every run's replicas) or "repeats": N (seeds
// training.seed + 0 .. N-1 of each run): each run becomes seeded replicas of one group.
void read_seeds(core::ConfigReader& r, Project& p) {
  if (r.has("seeds") && r.has("repeats"))
    throw core::Error("repeats", "is given with \"seeds\"; allowed: one of \"seeds\" (a list of training seeds) and "
                           "\"repeats\" (N seeds counted from training.seed)");
  if (r.has("seeds")) {
    const auto list = r.get_int_list("seeds", {}, 0, int64_t{1} << 53, 1, core::limits::kMaxReplicas, core::limits::kNote);
    for (size_t i = 0; i < list.size(); ++i) {
      const auto earlier = list.begin() + static_cast<std::ptrdiff_t>(i);
      if (std::find(list.begin(), earlier, list[i]) != earlier)
        throw core::Error("seeds[" + std::to_string(i) + "]",
                    std::to_string(list[i]) + " is listed twice; allowed: distinct seeds");
      p.seeds.push_back(static_cast<uint64_t>(list[i]));
    }
  } else if (r.has("repeats")) {
    const int64_t n = r.get_int("repeats", 1, 1, core::limits::kMaxReplicas, core::limits::kNote);
    for (int64_t i = 0; i < n; ++i) p.seeds.push_back(static_cast<uint64_t>(i));
    p.repeats = true;
  } else {
    r.ignore("seeds");
    r.ignore("repeats");
  }
}

namespace {

// Variant and group names, in project order: what a claim or the report's control may name.
std::vector<std::string> run_names_of(const Project& p) {
  std::vector<std::string> names;
  for (const RunPlan& plan : p.runs)
    for (const std::string* n : {&plan.entry, &plan.group})
      if (std::find(names.begin(), names.end(), *n) == names.end()) names.push_back(*n);
  return names;
}

}  // namespace

// "claims": checked against the runs the project has (variant and group names) and its data.
void read_project_claims(core::ConfigReader& r, Project& p, const DataSpec& dataspec) {
  if (!r.has("claims")) {
    r.ignore("claims");
    return;
  }
  analysis::ClaimContext ctx;
  ctx.is_task = dataspec.is_task;
  if (dataspec.is_task && !dataspec.test_tasks.empty()) ctx.first_test_set = dataspec.test_tasks.front().first;
  ctx.runs = run_names_of(p);
  p.claims = analysis::read_claims(r.at("claims"), "claims", ctx);
}

// "report": {"correction": "holm" | "dunnett" | "none", "alpha": 0.05, "power": 0.8,
//            "early_training_tokens_per_param": 20, "control": "<variant or group>"}.
// "scaling": {"metric": "val/loss", "bootstrap": 1000, "seed": 1, "extrapolate": 3, "isoflop": false,
//             "series": {"pha": ["pha-d64", "pha-d128", ...], ...}}.
void read_scaling(core::ConfigReader& r, bool is_task, const std::vector<std::string>& entry_names, Project& p) {
  if (is_task)
    throw core::Error("scaling", "fits a loss against size; this project's runs are tasks (they record accuracy); allowed: "
                           "a text project");
  core::ConfigReader s = r.object("scaling", {"metric", "bootstrap", "seed", "extrapolate", "series", "isoflop", "predict"});
  if (s.has("predict")) {
    // Sizes held out of every fit and predicted by it: the test of the law out of sample.
    const json& list = s.at("predict");
    std::vector<std::string> names = entry_names;
    for (const auto& run : p.runs) {  // a size of a grid: "<entry>/<grid point>"
      const std::string size = run.entry + "/" + run.grid_point;
      if (!run.grid_point.empty() && std::find(names.begin(), names.end(), size) == names.end()) names.push_back(size);
    }
    if (!list.is_array() || list.empty())
      throw core::Error("scaling.predict", "expected a non-empty list of variant names (sizes beyond the largest fitted one, "
                                     "held out of the fit), got " + core::describe_json(list));
    for (size_t i = 0; i < list.size(); ++i) {
      const json& m = list[i];
      if (!m.is_string() || std::find(names.begin(), names.end(), m.get<std::string>()) == names.end())
        throw core::Error("scaling.predict[" + std::to_string(i) + "]",
                    core::describe_json(m) + " is not a variant of this project; allowed: " + core::quoted_list(names));
      p.scaling.predict.push_back(m.get<std::string>());
    }
  }
  if (s.has("series")) {
    const json& series = s.at("series");
    const std::vector<std::string>& names = entry_names;
    if (!series.is_object() || series.empty())
      throw core::Error("scaling.series", "expected {\"<name>\": [variant, ...], ...}, got " + core::describe_json(series));
    for (auto it = series.begin(); it != series.end(); ++it) {
      const std::string w = "scaling.series." + it.key();
      if (!it.value().is_array() || it.value().empty())
        throw core::Error(w, "expected a non-empty list of variant names (one per size), got " + core::describe_json(it.value()));
      std::vector<std::string> members;
      for (size_t i = 0; i < it.value().size(); ++i) {
        const json& m = it.value()[i];
        if (!m.is_string() || std::find(names.begin(), names.end(), m.get<std::string>()) == names.end())
          throw core::Error(w + "[" + std::to_string(i) + "]", core::describe_json(m) + " is not a variant of this project; allowed: " +
                                                            core::quoted_list(names));
        members.push_back(m.get<std::string>());
      }
      p.scaling.series.emplace_back(it.key(), members);
    }
  }
  const std::string metric = s.get_choice("metric", "val/loss", {"val/loss", "val/bpb", "test/loss", "test/bpb"});
  p.scaling.enabled = true;
  p.scaling.metric.text = p.scaling.metric.key = metric;
  p.scaling.n_boot = static_cast<size_t>(s.get_int("bootstrap", 1000, 0, 100000));
  p.scaling.seed = static_cast<uint64_t>(s.get_int("seed", 1, 0, int64_t{1} << 53));
  // A crossover beyond 3x the largest measured size is an extrapolation the fit cannot support.
  p.scaling.extrapolate = s.get_double("extrapolate", analysis::kMaxCrossoverFactor, 1.0, analysis::kMaxCrossoverFactor);
  p.scaling.isoflop = s.get_bool("isoflop", false);
  s.finish();
}

void read_report_settings(core::ConfigReader& r, Project& p) {
  if (!r.has("report")) {
    r.ignore("report");
    return;
  }
  core::ConfigReader s = r.object("report", {"correction", "alpha", "power", "early_training_tokens_per_param", "control"});
  const std::string correction = s.get_choice("correction", "holm", analysis::correction_names());
  for (auto c : {analysis::Correction::Holm, analysis::Correction::Dunnett, analysis::Correction::None})
    if (correction == analysis::to_string(c)) p.report.correction = c;
  p.report.alpha = s.get_double("alpha", 0.05, 0.0, 0.5, /*lo_open=*/true);
  p.report.power = s.get_double("power", 0.8, 0.5, 0.999);
  p.report.early_tokens_per_param = s.get_double("early_training_tokens_per_param", 20.0, 0.0, 1e9);
  if (s.has("control")) {
    if (p.report.correction != analysis::Correction::Dunnett)
      throw core::Error("report.control", "names the control of Dunnett's comparisons; allowed only with \"correction\": "
                                    "\"dunnett\" (the correction here is \"" + correction + "\")");
    const std::vector<std::string> names = run_names_of(p);
    const std::string control = s.get_string("control", "");
    if (std::find(names.begin(), names.end(), control) == names.end())
      throw core::Error("report.control", "\"" + control + "\" is not allowed; allowed: " + core::quoted_list(names));
    p.report.control = control;
  }
  s.finish();
}

}  // namespace pha::project::detail
