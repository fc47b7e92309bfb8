// The report of a project: for each claim the measured effect with its spread over seeds, the
// verdict and the paper's figure; the metrics of every group; parameter efficiency (accuracy
// against parameters per architecture family); accuracy against length (and against the input
// Bernoulli p). Built from the run store as data (Report), rendered as Markdown, HTML (self-
// contained: inline CSS and SVG plots) or JSON. No torch, no Qt: `pha report` and the window's
// Report tab call the same functions. Method and verdict rules: docs/report.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/claims.h"
#include "analysis/stats.h"

namespace pha::store {
class Store;
}

namespace pha::analysis {

// One run a project asks for (a runtime::RunPlan as plain data).
struct StudyRun {
  std::string name;        // "pha/d_model=32,seed=1"
  std::string group;       // "pha/d_model=32"
  std::string entry;       // the variants entry: "pha"
  std::string grid_point;  // "d_model=32" ("" without a grid)
  int64_t seed = 0;
  std::string variant;     // model variant: "pha", "transformer", ...
  std::string family;      // "ssm", "attention" or "hybrid" (family_names())
  int n_layers = 0;
  nlohmann::json config;   // {"model", "training", "data"} as the run would record them
};

// What the report needs from a project.
struct Study {
  std::string project;
  std::string description;
  bool is_task = false;
  std::vector<std::string> test_sets;  // task projects: data.test names, the first is "accuracy"
  std::vector<StudyRun> runs;          // in project order
  std::vector<Claim> claims;
};

enum class Verdict { Holds, DoesNotHold, Inconclusive, Mixed };
// "holds", "does not hold", "inconclusive at this scale", "mixed".
const char* to_string(Verdict verdict);

struct Replica {
  int64_t run_id = 0;
  int64_t seed = 0;
  std::string name;
};

// One group of replicas (a variant at one grid point).
struct GroupReport {
  std::string group, entry, grid_point, variant, family;
  int64_t n_params = 0;                 // of its replicas (0 when none finished)
  int n_layers = 0;
  std::vector<int64_t> seeds;           // planned
  std::vector<Replica> replicas;        // the finished runs used, one per seed
  std::vector<std::string> missing;     // "seed 2: not trained yet", "seed 1: failed (run 9)"
  std::map<std::string, Stats> metrics; // metric key -> final values over the replicas
};

// A value of a claim row: a group's metric, or a per-replica statistic (sandwich).
struct Measured {
  std::string label;
  Stats stats;
};

struct ClaimRow {
  std::string label;              // the grid point, or the groups compared
  std::vector<Measured> measured;
  std::string effect_label;       // "pha - sequential"; empty when the row has no single effect
  double effect = 0.0;            // the effect and its 95% interval (NaN when there is none)
  double effect_low = 0.0;
  double effect_high = 0.0;
  Verdict verdict = Verdict::Inconclusive;
  std::string reason;             // why this verdict, in words
};

struct MixerLayer {
  int layer = 0;
  Stats gss, attn, ffn;  // final mixer weight over the replicas
};

struct ClaimReport {
  Claim claim;
  std::string statement;
  std::vector<ClaimRow> rows;
  Verdict verdict = Verdict::Inconclusive;  // of the rows together (Mixed when they differ)
  std::string summary;                      // "holds at 2 of 3 grid points; inconclusive at 1"
  std::string mixer_group;                  // mixer_sandwich: the group of `mixer`
  std::vector<MixerLayer> mixer;            // mixer_sandwich: per-layer weights (first row)
};

// Accuracy against a swept quantity (T, or the input Bernoulli p).
struct SweepTable {
  std::string title;
  std::string x_label;
  std::vector<double> xs;
  std::vector<std::string> groups;
  std::vector<std::vector<Stats>> cells;  // [group][x]
  bool empty() const { return xs.empty(); }
};

struct Report {
  std::string project, description, store_path;
  int64_t generated_at_ms = 0;
  bool is_task = false;
  std::string accuracy_key;               // task projects: "test/<first set>/accuracy"
  std::vector<std::string> metric_keys;   // columns of the metrics table
  std::vector<GroupReport> groups;
  std::vector<ClaimReport> claims;
  SweepTable length, ood;
  std::vector<std::string> notes;         // settings that differ from project.json, missing runs
};

// Reads the study's runs from the store (runs of the project's name, kind train): for each
// planned (group, seed) the newest finished run. Never writes.
Report build_report(const Study& study, store::Store& store);

// Claim verdicts from the groups (report_claims.cpp); build_report calls it.
ClaimReport evaluate_claim(const Claim& claim, const Study& study, const Report& report, store::Store& store);

std::string render_markdown(const Report& report);
std::string render_html(const Report& report);
nlohmann::json report_json(const Report& report);
// "md", "html" or "json"; pha::Error naming `--format` otherwise.
std::string render_report(const Report& report, const std::string& format);
const std::vector<std::string>& report_formats();

}  // namespace pha::analysis
