// Claims a project declares about its runs ("claims" in project.json, docs/project-format.md):
// the papers' statements a study tests, e.g. "PHA's validation perplexity is lower than the
// sequential hybrid's". Read and validated here with the engine's ConfigReader (errors name the
// field, what was found and what is allowed); evaluated by the report (analysis/report.h).
// Plain C++: no torch, no Qt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::analysis {

enum class ClaimKind { LowerIsBetter, HigherIsBetter, MixerSandwich, AccuracyAtParams, Knockout, Specialisation, Efficiency };

// "lower_is_better", "higher_is_better", "mixer_sandwich", "accuracy_at_params", "knockout",
// "specialisation", "efficiency".
const char* to_string(ClaimKind kind);
const std::vector<std::string>& claim_kind_names();

// What a claim reads from each replica.
struct MetricRef {
  enum class Source { Summary, Eval };
  Source source = Source::Summary;
  std::string text;     // as written ("val/ppl", "accuracy", "eval/length/accuracy@400")
  std::string key;      // Summary: a run metric key ("accuracy" resolves to "test/<set>/accuracy")
  std::string set;      // Eval: the evaluation set ("valid", "test", "length", ...)
  std::string metric;   // Eval: "accuracy", "perplexity", ...
  int64_t seq_len = -1; // Eval: the T of "@T"; -1: the only T the run has for that set
};

// Architecture families of the parameter-efficiency table (model-spec: seed 2's comparison).
// "ssm": no attention in any layer (gss-only, pha-no-attn); "attention": no GSS (transformer,
// pha-no-gss); "hybrid": both (pha, sequential, patterns mixing the two).
const std::vector<std::string>& family_names();

// The branches a knock-out removes: "gss", "attn", "ffn" (store/lens_store.h).
const std::vector<std::string>& branch_names();
// The token classes the lens measures losses on: text "copyable", "novel"; tasks "key",
// "value", "query", "filler", "answer", "other".
const std::vector<std::string>& token_class_names(bool is_task);

struct Claim {
  ClaimKind kind = ClaimKind::LowerIsBetter;
  std::string where;   // "claims[2]": the field the claim was read from
  std::string title;   // optional heading
  std::string paper;   // the paper's figure, shown beside the measurement ("16.42 vs 16.46")
  // "role": "primary" (default): the claim is one of the report's family of tests, corrected
  // together; "secondary": exploratory, corrected among the secondary claims only, printed after
  // the primary ones and never called "holds" without "exploratory" (docs/report.md).
  bool primary = true;
  // "smallest_effect": the smallest effect of interest, in the metric's units (lower/higher_is_better,
  // knockout, specialisation); 0: none. With one, each row also tests the two one-sided
  // hypotheses "effect >= +margin" and "effect <= -margin" on the claimed side (TOST), inside the
  // correction: "equivalent within ± margin" when both are rejected, "smaller than the paper's
  // effect" (or "... than the smallest effect of interest") when the first is.
  double smallest_effect = 0.0;
  bool smallest_effect_from_paper = false;  // {"value": x, "from": "paper"}: the margin is the paper's effect
  MetricRef metric;    // lower/higher_is_better, accuracy_at_params
  bool best = false;   // "at": "best" (the best value of the series) instead of the final one
  // "at": {"steps" | "tokens" | "flops": [b1, b2, ...]}: the claim is read at each budget from
  // the metric's series (linear interpolation between the two evaluations around a budget, never
  // beyond a run's last one), one verdict per budget. budget_axis "" = at the end of the runs.
  std::string budget_axis;
  std::vector<double> budgets;
  std::string better;  // lower/higher_is_better: the run (variant or group) claimed better ...
  std::string than;    // ... than this one
  std::string run;     // mixer_sandwich: the run whose mixers are tested
  int edge_layers = 1; // mixer_sandwich: layers at each end that count as "first and last"
  std::string family;  // accuracy_at_params
  int64_t max_params = 0;
  bool at_least = true;   // min_accuracy (some model reaches it) or max_accuracy (every model stays below)
  double threshold = 0.0; // the min_accuracy / max_accuracy value
  // knockout, specialisation (`run` names the group): read from the lens's stored knock-out rows.
  int layer = -1;            // the layer the branch is removed from; -1: "all" (every layer)
  std::string branch;        // the branch removed: "gss", "attn", "ffn"
  std::string other_branch;  // knockout: "hurts_more_than", the branch whose removal is compared
  std::string token_class;   // the tokens the loss is read on ("" = every counted token)
  std::string than_class;    // specialisation: "than", the class compared with
  // efficiency (`run` names the hybrid, `metric` the quality two runs are matched on): the
  // hybrid's inference figures (store/inference_store.h) against those of the baseline run of
  // equal quality (docs/report.md, Efficiency).
  std::vector<std::string> baseline;      // the variants and groups the baseline covers (patterns expanded)
  std::string baseline_text;              // "baseline" as written, for the statement
  int64_t seq_len = 0;                    // L of the inference point read
  int64_t batch = 1;
  std::string phase = "decode";           // the tokens/s compared: "decode", "prefill" or "e2e"
  double tolerance = 0.0;                 // "loss_tolerance": |metric difference| that counts as equal quality
  double min_throughput_ratio = 0.0;      // "throughput_ratio_at_least" (0: not tested)
  double max_memory_ratio = 0.0;          // "memory_ratio_at_most" (0: not tested)
  nlohmann::json json;    // as written
};

// What the project offers claims to refer to.
struct ClaimContext {
  std::vector<std::string> runs;  // variant names and group names ("pha", "pha/d_model=64")
  bool is_task = false;           // task data (accuracy) or text (loss, perplexity)
  std::string first_test_set = "test";  // "accuracy" means test/<this>/accuracy
};

// Reads the "claims" list. Throws core::Error naming the field ("claims[1].than: ...").
std::vector<Claim> read_claims(const nlohmann::json& section, const std::string& where, const ClaimContext& context);

// "at layer 3", "in every layer" (layer -1) of a knock-out.
std::string layer_words(int layer);

// The claim in words: "val/ppl (final): pha lower than sequential".
std::string statement(const Claim& claim);

// The margin in words: "the paper's effect (0.1)", "the smallest effect of interest (0.02)".
std::string margin_words(const Claim& claim);

}  // namespace pha::analysis
