// The report of a project: for each claim the measured effect with its spread over seeds, the
// verdict and the paper's figure; the metrics of every group; parameter efficiency (accuracy
// against parameters per architecture family); accuracy against length (and against the input
// Bernoulli p). Built from the run store as data (Report), then as one document of blocks
// (analysis/report_document.h) that every view renders: Markdown, HTML (self-contained: inline
// CSS and SVG plots) and the window's Report dock; JSON dumps the data. No torch, no Qt: `pha
// report` and the window call the same functions. Method and verdict rules: docs/report.md.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/claims.h"
#include "analysis/internal/report_format.h"  // the figures' formats, shared by every view of a report
#include "analysis/internal/isoflop.h"
#include "analysis/scaling_fit.h"
#include "analysis/internal/scaling_identify.h"
#include "analysis/stats.h"

namespace pha::store {
class Store;
}

namespace pha::analysis {

// The default of a figure a row may not have.
inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

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
  std::string tune_point;  // "lr=0.003" of the project's "tune" section ("" without one)
  // A replica of the chosen setting trained again on the tune section's confirmation seeds
  // (group "<chosen group>,confirm"; project/project_tuning.h): claims read these, the tuning
  // table never does.
  bool confirmation = false;
  double train_flops_per_token = 0.0;  // the engine's FLOP count of a training step per token (0: unknown)
  int64_t n_params = 0;    // the engine's count of the model's parameters (0: unknown)
  int head_dim = 0;        // the attention's head dimension (0: no attention layer)
  int attention_heads = 0; // query heads (0: no attention layer)
  int d_model = 0;
  nlohmann::json config;   // {"model", "training", "data"} as the run would record them
};

// The project's "tune" section as the report needs it: each variant's settings are groups that
// differ in tune_point; a comparison picks each family's best setting on `select` (docs/report.md).
struct TuneProtocol {
  bool enabled = false;
  MetricRef select;       // a validation metric ("val/loss"): the setting is chosen on it
  bool maximize = false;  // accuracies: higher is better
  std::string axes;       // "training.lr, training.weight_decay": what was tuned, in words
  // Selection and confirmation (docs/report.md, "Tuned comparisons"): the seeds each setting is
  // trained on to choose it, and the fresh seeds the chosen setting is trained on again. With
  // confirmation seeds, claims read the confirmation replicas only.
  std::vector<int64_t> selection_seeds;
  std::vector<int64_t> confirm_seeds;
  // Axes the tried values grow along, one value at a time, while the choice is at their edge
  // (project/project_tuning.h), within [lo, hi] the project sets.
  struct Extend {
    std::string key;  // "training.lr"
    double lo = 0.0, hi = 0.0;
  };
  std::vector<Extend> extend;
};

// The project's "scaling" section: fit final `metric` against parameters and training FLOPs per
// variants entry over its grid points (a width ladder), analysis/scaling_fit.h.
// A crossover is never quoted beyond this factor times the largest size both series measured.
inline constexpr double kMaxCrossoverFactor = 3.0;
struct ScalingSpec {
  bool enabled = false;
  MetricRef metric;            // a summary key ("val/loss")
  std::size_t n_boot = 1000;   // bootstrap replicas
  uint64_t seed = 1;           // of the bootstrap
  double extrapolate = 3.0;    // crossovers are searched up to this factor beyond the largest x
                               //   (at most kMaxCrossoverFactor)
  bool isoflop = false;        // also the IsoFLOP view: sizes x training lengths at equal compute
  // Named series, each a list of variants entries (one size each, or a grid of sizes); empty:
  // one series per entry over its grid points.
  std::vector<std::pair<std::string, std::vector<std::string>>> series;
  // Variants entries (or "<entry>/<grid point>" sizes of a grid) held out of every fit and
  // predicted by it ("predict"): sizes beyond the largest fitted one, trained to test the law
  // out of sample. A fit is identified only when
  // each is predicted within kPredictionTolerance.
  std::vector<std::string> predict;
};
// A fit's predictions beyond its data must fall within this relative error (2%).
inline constexpr double kPredictionTolerance = 0.02;

// The project's "report" section (docs/project-format.md, Report): how one report's claims are
// tested together (docs/report.md, Statistics).
enum class Correction { Holm, Dunnett, None };
// "holm", "dunnett", "none".
const char* to_string(Correction correction);
const std::vector<std::string>& correction_names();

struct ReportSettings {
  Correction correction = Correction::Holm;
  double alpha = 0.05;                   // family-wise level of the verdicts
  double power = 0.8;                    // of the minimum detectable effect
  double early_tokens_per_param = 20.0;  // below: "early training"
  std::string control;                   // dunnett: a group or variants entry ("": the one in most comparison rows)
};

// What the report needs from a project.
struct Study {
  std::string project;
  std::string description;
  bool is_task = false;
  std::vector<std::string> test_sets;  // task projects: data.test names, the first is "accuracy"
  std::vector<StudyRun> runs;          // in project order
  std::vector<Claim> claims;
  TuneProtocol tune;
  ScalingSpec scaling;
  ReportSettings settings;
  // What the project registers when its first run starts (project/project_registration.h): its
  // claims and design as project.json gives them now; the report compares it with the store's
  // registration ("changed after data"). null: not compared.
  nlohmann::json design;
};

// TooFewReplicas: a side has fewer than 3 replicas with a finite value (no verdict is given).
// Equivalent / SmallerThanEffect: only for a claim with a smallest effect of interest (its two
// one-sided margin tests, docs/report.md "Equivalence and bounds").
enum class Verdict { Holds, DoesNotHold, Inconclusive, Mixed, TooFewReplicas, Equivalent, SmallerThanEffect };
// "holds", "does not hold", "inconclusive at this scale", "mixed", "too few replicas",
// "equivalent within the margin", "smaller than the effect of interest".
const char* to_string(Verdict verdict);
// The verdict as a claim states it: "equivalent within ± 0.1", "smaller than the paper's effect
// (0.1)", and " (exploratory)" after a secondary claim's holds / does not hold / equivalent /
// smaller.
std::string verdict_text(const Claim& claim, Verdict verdict);
// A side needs this many replicas with a finite value for a verdict (docs/report.md).
inline constexpr std::size_t kMinReplicasForVerdict = 3;

struct Replica {
  int64_t run_id = 0;
  int64_t seed = 0;
  std::string name;
};

// One group of replicas (a variant at one grid point).
struct GroupReport {
  std::string group, entry, grid_point, variant, family;
  std::string tune_point;               // the tuned setting ("" without a "tune" section)
  bool confirmation = false;            // the chosen setting's confirmation replicas (StudyRun)
  int64_t n_params = 0;                 // of its replicas (0 when none finished)
  double train_flops_per_token = 0.0;   // of its plan (0: unknown)
  int failed = 0;                       // planned seeds whose newest run failed or diverged
  int pending = 0;                      // planned seeds not trained yet, running, cancelled or interrupted
  int n_layers = 0;
  std::vector<int64_t> seeds;           // planned
  std::vector<Replica> replicas;        // the finished runs used, one per seed
  std::vector<std::string> missing;     // "seed 2: not trained yet", "seed 1: failed (run 9)"
  std::map<std::string, Stats> metrics; // metric key -> final values over the replicas
  double tokens = kNoValue;             // training tokens per replica: the mean over its replicas of
                                        //   the tokens of their last train/loss point (NaN: none)
};

// A value of a claim row: a group's metric, or a per-replica statistic (sandwich).
struct Measured {
  std::string label;
  Stats stats;
  std::vector<double> values;           // per replica (NaN: it has none), in replica order
  std::vector<int64_t> seeds;           // the replicas' seeds, beside values
  // accuracy_at_params: the replicas that reach the threshold, with Wilson's 95% interval of
  // that rate (successes < 0: not a success count).
  int successes = -1;
  double wilson_low = 0.0, wilson_high = 0.0;
};

// The test behind a row's p-value.
struct RowTest {
  std::string text;               // "paired by seed, n=3", "Welch, unpaired: seeds differ", ...
  bool compare = false;           // a comparison of two groups (it gets a power analysis)
  TestSpread spread;              // the test and its measured spreads (for the seeds needed)
  double df = kNoValue;
  double se = kNoValue;           // standard error of the effect
  int direction = 0;              // +1: the statistic lies on the claimed side, -1: on the other, 0: neither
};

// The evaluation's own noise of a comparison on an evaluated metric (val/, test/, eval/): the
// mean over each side's replicas of the standard error the final evaluation recorded
// ("<metric>_se" rows).
struct EvalNoise {
  bool applies = false;           // the metric is an evaluation's, read at the end of training
  bool recorded = false;          // both sides have the SE rows (older stores do not)
  double se_a = kNoValue, se_b = kNoValue;
  double noise = kNoValue;        // 1.96 sqrt(se_a^2 + se_b^2)
  bool within = false;            // |effect| < noise
};

// The training budget behind a row: its groups' tokens per replica (at a budget row, the
// budget's tokens) and tokens per parameter (the smallest over the row's groups).
struct RowBudget {
  double tokens = kNoValue;            // NaN: unknown
  double tokens_per_param = kNoValue;  // NaN: unknown
  bool early = false;                  // tokens_per_param < ReportSettings::early_tokens_per_param
};

struct ClaimRow {
  std::string label;              // the grid point, or the groups compared
  std::vector<Measured> measured;
  std::string effect_label;       // "pha - sequential"; empty when the row has no single effect
  double effect = 0.0;            // the effect and its 95% interval (NaN when there is none)
  double effect_low = 0.0;
  double effect_high = 0.0;
  std::string better, than;       // compare rows: the groups compared
  double at_budget = kNoValue;    // the budget of a row read at one (NaN: at the end of training)
  RowTest test;
  double p = kNoValue;            // raw two-sided p (NaN: the row is not tested and not in the family)
  double p_adjusted = kNoValue;   // after the report's correction (NaN when p is)
  std::string adjustment;         // how p was adjusted: "Holm, m = 7", "Dunnett against pha, 3 comparisons", "none"
  // The claim's smallest effect of interest (Claim::smallest_effect > 0): the one-sided tests of
  // "effect on the claimed side >= +margin" (hi) and "<= -margin" (lo), raw and adjusted inside
  // the correction, and the 90% interval of the effect on the claimed side (TOST's display).
  double p_margin_hi = kNoValue, p_margin_hi_adjusted = kNoValue;
  double p_margin_lo = kNoValue, p_margin_lo_adjusted = kNoValue;
  double tost_low = kNoValue, tost_high = kNoValue;
  double mde = kNoValue;          // compare rows: minimum detectable effect at the power and alpha / m (NaN: none)
  std::size_t seeds_needed = 0;   // inconclusive compare rows: seeds per side to detect the effect (0: see seeds_text)
  std::string seeds_text;         // "5 seeds per side", "more than 1000", "no number of seeds" ("" : not asked)
  EvalNoise eval;
  RowBudget budget;
  Verdict verdict = Verdict::Inconclusive;
  std::string reason;             // why this verdict, in words
};

// Where the two sides' mean learning curves cross (analysis/scaling_fit.h, curve_crossings), on
// one axis: "tokens" or "flops" (training FLOPs: tokens x the engine's count per token).
struct CurveCrossing {
  std::string label;   // "pha-tiny vs transformerpp-tiny"
  std::string axis;    // "tokens" or "flops"
  std::vector<double> at;  // ascending; empty: they do not cross on the common range
  double lo = 0.0, hi = 0.0;  // the common range of the two curves
  std::string better_at_end;  // the side with the better value at the end of the common range
};

struct MixerLayer {
  int layer = 0;
  Stats gss, attn, ffn;  // final mixer weight over the replicas
  // effective share (mixer weight x gain RMS over the layer's sum, `pha lens weights`) over the
  // replicas that have one stored (n = 0: none has)
  Stats gss_share, attn_share, ffn_share;
};

struct ClaimReport {
  Claim claim;
  std::string statement;
  // The claim cannot pass the correction at its planned seeds at all ("underpowered by
  // design: ..."), said before a run (pha plan) and repeated here; "" when it can.
  std::string underpowered;
  // The claim or its design changed after the project's first run (the registration, below):
  // each change in words ("than: \"pha-no-attn\" -> \"gss-only\""); "added after data" when the
  // registration had no such claim.
  std::vector<std::string> changed_after_data;
  std::vector<std::string> shape_warnings;  // baseline checks of the groups it compares
  // Tests the design plans for the claim (planned_tests): the family's m counts them whether or
  // not their runs have finished.
  std::size_t planned_tests = 0;
  std::vector<ClaimRow> rows;
  Verdict verdict = Verdict::Inconclusive;  // of the rows together (Mixed when they differ)
  std::string summary;                      // "holds at 2 of 3 grid points; inconclusive at 1"
  std::string tuning;                       // compare claims: "tuned: ..." or "untuned: ..." (the verdict line)
  std::vector<CurveCrossing> crossings;     // claims read at budgets: the learning curves' crossing points
  std::string mixer_group;                  // mixer_sandwich: the group of `mixer`
  std::vector<MixerLayer> mixer;            // mixer_sandwich: per-layer weights and effective shares (first row)
  std::string early;                        // "early training (3.2 tokens/parameter < 20)" when a row is
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

// One tuned setting of a variant at a grid point, and whether the comparison may choose it.
struct TuningSetting {
  std::string group, tune_point;
  Stats select;        // the selection metric over the replicas
  // What the choice ranks by: the mean plus one standard error (minus for accuracies), so that a
  // setting whose replicas spread widely is not chosen for one lucky seed (NaN: not choosable).
  double score = kNoValue;
  Stats test;          // its test-split counterpart ("test/loss" for "val/loss"), reported only
  int planned = 0;
  std::string status;  // "ok", "failed: ...", "incomplete: ...", "metric missing: ..."
  bool chosen = false;
};

// Every setting of one variants entry at one grid point (its rows in project order) and the one
// chosen: the lowest mean plus one standard error of the selection metric (highest mean minus
// one standard error for accuracies) among the settings whose every planned replica finished
// with that metric; a tie goes to the setting listed first.
struct TuningTable {
  std::string entry, grid_point;
  std::string metric, test_metric;
  std::vector<TuningSetting> settings;
  int chosen = -1;        // index into settings; -1: no setting can be chosen
  bool complete = true;   // false: a setting still has replicas to train (a claim waits for them)
  std::string note;       // why none was chosen, or which settings are incomplete
  // Where the choice lies on the one extendable axis (TuneProtocol::extend) it varies: "" (no
  // such axis, or no choice), "interior", "lower edge", "upper edge", "at the bound".
  std::string edge;
  std::string seeds;      // "chosen on seeds 0, 1; claims read confirmation seeds 10-14" (words)
  // The chosen setting's confirmation group, when the protocol has confirmation seeds ("" until
  // it is planned: project/project_tuning.h plans it once the choice is final).
  std::string confirmation_group;
  // The selection-vs-confirmation gap: the chosen setting's selection metric on its confirmation
  // replicas minus on the replicas that chose it (Welch), in words; "" until both exist.
  Stats confirmation;
  double gap = kNoValue, gap_low = kNoValue, gap_high = kNoValue;
  std::string gap_text;
};

// Tuning chooses on at least this many selection seeds (docs/report.md, "Tuned comparisons").
inline constexpr std::size_t kMinSelectionSeeds = 3;

// One family's fit of final loss against x (parameters or training FLOPs) over its sizes.
struct ScalingSeries {
  std::string entry, family;           // entry: the series' name (a variants entry, or a "series" key)
  std::vector<double> x, y;            // every replica's point
  std::vector<double> size_x;          // distinct x, ascending
  std::vector<Stats> size_y;           // the metric over the replicas at each size
  std::vector<std::string> size_setting;  // with "tune": the chosen setting at each size ("lr=0.003")
  PowerLawFit fit;                     // with its band at 40 log-spaced x over the sizes
  Identifiability check;               // sizes, bounds, interval widths, leave-one-out, prediction
  // The sizes held out of the fit (ScalingSpec::predict), predicted by it: x, the fit's value
  // and its bootstrap interval, the measured mean over the replicas and the relative error.
  std::vector<HeldOut> predictions;
};

struct ScalingCross {
  std::string a, b;                    // entries
  bool found = false;
  std::string message;
  double x = 0.0, low = 0.0, high = 0.0, fraction = 0.0;
  double x_lo = 0.0, x_hi = 0.0;
  std::string caution;                 // "pha's fit is not identified": read the crossing with it
};

struct ScalingAxis {
  std::string axis;                    // "params" or "flops"
  std::string x_label;                 // "parameters", "training FLOPs"
  std::vector<ScalingSeries> series;
  std::vector<ScalingCross> crossovers;
  std::string note;                    // flops: "every size trained on the same tokens ..." ("" : none)
};

struct ScalingReport {
  std::string metric;
  std::vector<ScalingAxis> axes;       // params, then flops
  std::vector<std::string> notes;      // entries left out (fewer than 3 sizes) and why
  bool isoflop_requested = false;      // the section asks for the IsoFLOP view
  struct IsoFlop {
    std::string entry;                 // the series
    IsoFlopFit fit;
  };
  std::vector<IsoFlop> isoflop;        // one per series, when requested
  bool empty() const { return axes.empty(); }
};

// The store's registration of the project (store/registration_store.h): the claims and design
// recorded when its first run started, and what differs from them now.
struct RegistrationReport {
  bool present = false;
  int64_t registered_at_ms = 0;
  std::string hash;                     // sha256 of the registered design (hex)
  int64_t runs_before = 0;              // training runs of the project the store held already then
  int64_t first_run_ms = 0;             // the earliest of them (0: none)
  std::vector<std::string> changes;     // design fields changed after data, in words
  std::vector<std::string> claims_removed;  // registered claims the project no longer declares
  std::string text;                     // the line the report prints
};

// A baseline check (baseline_checks): a shape nobody would train, parameter counts apart, a
// learning-rate curve with a bump; what it concerns and what to change.
struct ShapeWarning {
  std::vector<std::string> groups;      // the groups (or variants entries) it concerns
  std::string text;
};

struct Report {
  std::string project, description, store_path;
  RegistrationReport registration;
  std::vector<ShapeWarning> shape_warnings;
  int64_t generated_at_ms = 0;
  bool is_task = false;
  std::string accuracy_key;               // task projects: "test/<first set>/accuracy"
  std::vector<std::string> metric_keys;   // columns of the metrics table
  std::vector<GroupReport> groups;
  std::vector<ClaimReport> claims;
  std::vector<TuningTable> tuning;        // with a "tune" section: per entry and grid point
  bool tuning_maximize = false;           // the tune section selects the highest (accuracies)
  ScalingReport scaling;                  // with a "scaling" section
  SweepTable length, ood;
  std::vector<std::string> notes;         // settings that differ from project.json, missing runs
  ReportSettings settings;                // the project's "report" section
  std::size_t family_size = 0;            // m: the primary claims' planned tests (or more when more have a p-value)
  std::size_t family_tested = 0;          // of those, the tests with a p-value
  std::size_t secondary_size = 0;         // the secondary (exploratory) claims' tests, corrected among themselves
  std::string control;                    // dunnett: the control (a variants entry or group)
  std::string statistics;                 // the correction, m and alpha in words (the header's line)
};

// Reads the study's runs from the store (runs of the project's name, kind train): for each
// planned (group, seed) the newest finished run. Never writes.
Report build_report(const Study& study, store::Store& store);

// The tuning table of `entry` at `grid_point` (report_tuning.cpp); build_report fills
// Report::tuning with it when the study has a "tune" section.
TuningTable tuning_table(const Study& study, const Report& report, const std::string& entry,
                         const std::string& grid_point, store::Store& store);
// Where a tuning table's choice lies on one axis of TuneProtocol::extend.
struct TuneEdge {
  std::string key;            // "training.lr"
  double value = 0.0;         // the chosen setting's value
  std::vector<double> tried;  // the values of the settings tried (one per setting)
  int direction = 0;          // -1: the lowest tried, +1: the highest, 0: interior (or one value)
  double next = 0.0;          // the value to try next beyond the edge (NaN: none: bounded or interior)
  bool bounded = false;       // at an edge the project's bound stops extending
  double bound = 0.0;         // that bound
};
std::vector<TuneEdge> tuning_edges(const TuneProtocol& tune, const TuningTable& table);
// The value tried next beyond the lowest (direction -1) or highest (+1) of `values` (at least two
// distinct): the last step repeated, geometrically when every value is positive (lr 1e-3, 3e-3 ->
// 9e-3), arithmetically otherwise (weight decay 0, 0.1 -> 0.2), rounded to 3 significant digits;
// NaN when that whole step would leave [lo, hi] (the choice is then at the project's bound), or
// direction 0, or fewer than two values. Never a partial step squeezed against the bound.
double next_tune_value(std::vector<double> values, int direction, double lo, double hi);

// Every tuning table of the study (entries and grid points in project order), without the rest
// of the report: what project/project_tuning.h plans the follow-up runs from.
std::vector<TuningTable> tuning_tables(const Study& study, store::Store& store);
// The group that confirms `chosen_group` ("pha/lr=0.003" -> "pha/lr=0.003,confirm").
std::string confirmation_group_of(const std::string& chosen_group);

// The scaling fits (report_scaling.cpp); build_report fills Report::scaling with it.
ScalingReport scaling_report(const Study& study, const Report& report, store::Store& store);

// Claim rows from the groups (report_claims.cpp): their effects, tests and raw p-values;
// build_report calls it, then correct_report.
ClaimReport evaluate_claim(const Claim& claim, const Study& study, const Report& report, store::Store& store);

// The correction over every row of every claim with a p-value (report_stats.cpp): adjusted p,
// verdicts at the adjusted p, power, early training, the claims' overall verdicts and the
// report's statistics line.
void correct_report(Report& report, const ReportSettings& settings);

// The tests a claim's rows bring to its family, from the design alone (before any run): its
// rows (grid points x budgets; per group for one-group kinds), times 3 where it declares a
// smallest effect (the difference and the two margin tests).
std::size_t planned_tests(const Study& study, const Claim& claim);
// Whether a claim can pass the correction at its planned seeds at all, before a run: "" when it
// can; else "underpowered by design: ..." with the seeds it needs (docs/report.md, "Power before
// compute"). m: its family's planned size.
struct DesignPower {
  std::string underpowered;   // "" or the mark's text
  std::size_t seeds = 0;      // the planned seeds per group the claim reads
  std::size_t seeds_needed = 0;  // the seeds that could pass Holm's first step (0: not known / not needed)
  std::string note;           // what the planned seeds can detect, in words
};
DesignPower design_power(const Study& study, const Claim& claim, std::size_t m);
// Baseline checks of a study's planned groups (no data needed): attention head dimension below
// 16, the groups a comparison claim compares more than 3% apart in parameters.
std::vector<ShapeWarning> baseline_checks(const Study& study);
// The tuning tables' learning-rate curves: a setting worse than both neighbours beyond their
// noise (a bump), with what to change.
std::vector<ShapeWarning> tuning_curve_checks(const Study& study, const Report& report);
// The registration's line and changes (report_design.cpp); build_report fills Report::registration.
RegistrationReport registration_report(const Study& study, store::Store& store);
// The changes of study.claims[index] against the registration, in words ("than: \"a\" -> \"b\"",
// or "added after data ..."); empty when unchanged or not registered.
std::vector<std::string> claim_changes(const Study& study, store::Store& store, std::size_t index);

std::string render_markdown(const Report& report);
std::string render_html(const Report& report);
nlohmann::json report_json(const Report& report);
// "md", "html" or "json"; core::Error naming `--format` otherwise.
std::string render_report(const Report& report, const std::string& format);
const std::vector<std::string>& report_formats();

}  // namespace pha::analysis
