// Reading and validating claims: one ConfigReader per claim with the keys of its kind, so a typo
// gets "did you mean", a wrong value gets the allowed ones, and a run name must exist.
#include "analysis/claims.h"

#include <algorithm>
#include <cmath>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/metric_table.h"

namespace pha::analysis {

using nlohmann::json;

namespace {

const char* const kEvalMetrics[] = {"loss", "perplexity", "bpb", "accuracy", "macro_accuracy", "exact_match"};

// The metric's name as the metric table reads it: an evaluation row's metric, else the key.
const std::string& table_name(const MetricRef& m) { return m.source == MetricRef::Source::Eval ? m.metric : m.key; }

// What only task runs record: accuracies and exact match (core/metric_table.h, MetricKind).
bool is_task_only(const MetricRef& m) { return core::is_metric_kind(table_name(m), core::MetricKind::Accuracy); }

// What only text runs record: held-out losses (validation / test / evaluation loss, perplexity
// and bits per byte; task runs record train/loss too, so that one is not text-only).
bool is_text_only(const MetricRef& m) {
  const bool held_out = m.source == MetricRef::Source::Eval || m.key.rfind("val/", 0) == 0 || m.key.rfind("test/", 0) == 0;
  return held_out && core::is_metric_kind(table_name(m), core::MetricKind::Loss);
}

[[noreturn]] void bad_metric(const std::string& where, const std::string& text, const std::string& why) {
  throw core::Error(where, "\"" + text + "\" " + why +
                         "; allowed: a run metric key (\"val/ppl\", \"val/loss\", \"test/ppl\", \"val/accuracy\", "
                         "\"train/loss\"), \"accuracy\" (the held-out accuracy of task runs) or "
                         "\"eval/<set>/<metric>[@T]\" (an evaluation row, e.g. \"eval/length/accuracy@400\")");
}

// "eval/<set>/<metric>[@T]": the set may itself hold '/', the metric is after the last one.
MetricRef parse_eval_metric(const std::string& text, const std::string& where) {
  MetricRef m;
  m.source = MetricRef::Source::Eval;
  m.text = text;
  std::string body = text.substr(5);
  const size_t at = body.find('@');
  if (at != std::string::npos) {
    const std::string t = body.substr(at + 1);
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos || std::stoll(t) < 1)
      bad_metric(where, text, "has a length after '@' that is not a positive integer");
    m.seq_len = std::stoll(t);
    body = body.substr(0, at);
  }
  const size_t slash = body.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == body.size())
    bad_metric(where, text, "names no evaluation set and metric");
  m.set = body.substr(0, slash);
  m.metric = body.substr(slash + 1);
  if (std::find(std::begin(kEvalMetrics), std::end(kEvalMetrics), m.metric) == std::end(kEvalMetrics)) {
    std::vector<std::string> allowed(std::begin(kEvalMetrics), std::end(kEvalMetrics));
    throw core::Error(where, "\"" + text + "\": evaluation metric \"" + m.metric + "\" is not recorded; allowed: " +
                           core::quoted_list(allowed));
  }
  return m;
}

MetricRef parse_metric(const std::string& text, const std::string& where, const ClaimContext& ctx) {
  MetricRef m;
  if (text.rfind("eval/", 0) == 0) {
    m = parse_eval_metric(text, where);
  } else if (text == "accuracy") {
    if (!ctx.is_task) bad_metric(where, text, "is the accuracy of task runs; this project trains on text");
    m.text = text;
    m.key = "test/" + ctx.first_test_set + "/accuracy";
    return m;
  } else {
    const size_t slash = text.find('/');
    const std::string prefix = slash == std::string::npos ? "" : text.substr(0, slash);
    if (slash == std::string::npos || slash + 1 == text.size() ||
        (prefix != "train" && prefix != "val" && prefix != "test" && prefix != "branch_rms"))
      bad_metric(where, text, "is not a metric the runs record");
    m.text = m.key = text;
  }
  if (ctx.is_task && is_text_only(m))
    bad_metric(where, text, "is a text metric; this project's runs are tasks (they record accuracy)");
  if (!ctx.is_task && is_task_only(m))
    bad_metric(where, text, "is a task metric; this project's runs are text (they record loss, ppl, bpb)");
  return m;
}

const std::vector<std::string>& keys_of(ClaimKind kind) {
  static const std::vector<std::string> compare = {"claim", "title", "metric", "better", "than", "at", "paper",
                                                   "role", "smallest_effect"};
  static const std::vector<std::string> sandwich = {"claim", "title", "run", "edge_layers", "paper", "role"};
  static const std::vector<std::string> params = {"claim",        "title",        "metric", "family", "max_params",
                                                  "min_accuracy", "max_accuracy", "paper",  "role"};
  static const std::vector<std::string> knockout = {"claim",  "title", "run", "layer", "branch",
                                                    "hurts_more_than", "class", "paper", "role", "smallest_effect"};
  static const std::vector<std::string> specialisation = {"claim", "title", "run",  "layer",          "branch",
                                                          "class", "than",  "paper", "role", "smallest_effect"};
  static const std::vector<std::string> efficiency = {"claim",          "title",          "role",
                                                      "run",            "baseline",
                                                      "seq_len",        "batch",
                                                      "phase",          "metric",
                                                      "loss_tolerance", "throughput_ratio_at_least",
                                                      "memory_ratio_at_most", "paper"};
  if (kind == ClaimKind::Efficiency) return efficiency;
  if (kind == ClaimKind::MixerSandwich) return sandwich;
  if (kind == ClaimKind::AccuracyAtParams) return params;
  if (kind == ClaimKind::Knockout) return knockout;
  if (kind == ClaimKind::Specialisation) return specialisation;
  return compare;
}

ClaimKind kind_from(const json& c, const std::string& where) {
  const auto& names = claim_kind_names();
  if (!c.contains("claim") || c["claim"].is_null())
    throw core::Error(where + ".claim", "is required; allowed: " + core::quoted_list(names));
  core::ConfigReader kr(json{{"claim", c["claim"]}}, where);
  const std::string k = kr.get_choice("claim", "", names);
  return static_cast<ClaimKind>(std::find(names.begin(), names.end(), k) - names.begin());
}

// "at": {"tokens": [1e5, 4e5]}: exactly one axis, a non-empty ascending list of positive budgets.
void read_budgets(Claim& c, core::ConfigReader& r) {
  static const std::vector<std::string> axes = {"steps", "tokens", "flops"};
  const json& at = r.at("at");
  const std::string where = r.field("at");
  if (at.size() != 1 || std::find(axes.begin(), axes.end(), at.begin().key()) == axes.end())
    throw core::Error(where, "expected one budget axis {\"tokens\": [1e5, 4e5, ...]}, got " + at.dump() +
                           "; allowed axes: " + core::quoted_list(axes) + " (or \"final\", \"best\")");
  c.budget_axis = at.begin().key();
  const json& list = at.begin().value();
  const std::string lw = where + "." + c.budget_axis;
  if (!list.is_array() || list.empty() || list.size() > 64)
    throw core::Error(lw, "expected a list of 1 to 64 budgets (numbers > 0), got " + core::describe_json(list));
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number() || !(list[i].get<double>() > 0.0) || !std::isfinite(list[i].get<double>()))
      throw core::Error(lw + "[" + std::to_string(i) + "]", "expected a number > 0, got " + core::describe_json(list[i]));
    const double b = list[i].get<double>();
    if (!c.budgets.empty() && b <= c.budgets.back())
      throw core::Error(lw + "[" + std::to_string(i) + "]", core::format_number(b) + " is not above the budget before it (" +
                                                            core::format_number(c.budgets.back()) + "); allowed: ascending budgets");
    c.budgets.push_back(b);
  }
}

void read_compare(Claim& c, core::ConfigReader& r, const ClaimContext& ctx) {
  c.metric = parse_metric(r.require_string("metric"), r.field("metric"), ctx);
  if (!r.has("better")) throw core::Error(r.field("better"), "is required; allowed: " + core::quoted_list(ctx.runs));
  c.better = r.get_choice("better", "", ctx.runs);
  if (!r.has("than")) throw core::Error(r.field("than"), "is required; allowed: " + core::quoted_list(ctx.runs));
  c.than = r.get_choice("than", "", ctx.runs);
  if (c.better == c.than) throw core::Error(r.field("than"), "\"" + c.than + "\" is the run of \"better\"; allowed: another run");
  if (r.has("at") && r.at("at").is_object()) {
    read_budgets(c, r);
  } else {
    c.best = r.get_choice("at", "final", {"final", "best"}) == "best";
  }
  if ((c.best || !c.budget_axis.empty()) && c.metric.source == MetricRef::Source::Eval)
    throw core::Error(r.field("at"), std::string(c.best ? "\"best\"" : "a budget") + " needs a metric series; \"" +
                                   c.metric.text + "\" is an evaluation row (one value per step); allowed: \"final\"");
}

void read_sandwich(Claim& c, core::ConfigReader& r, const ClaimContext& ctx) {
  if (!r.has("run")) throw core::Error(r.field("run"), "is required; allowed: " + core::quoted_list(ctx.runs));
  c.run = r.get_choice("run", "", ctx.runs);
  c.edge_layers = static_cast<int>(r.get_int("edge_layers", 1, 1, 512));
}

// "layer": an index (checked against the runs' layers when the report reads the rows) or "all".
int read_layer(core::ConfigReader& r) {
  const std::string allowed = "allowed: a layer index (0 for the first layer) or \"all\" (the branch removed in every layer)";
  if (!r.has("layer")) return -1;
  const json& v = r.at("layer");
  if (v.is_string()) {
    if (v.get<std::string>() == "all") return -1;
    throw core::Error(r.field("layer"), "\"" + v.get<std::string>() + "\" is not allowed; " + allowed);
  }
  if (!v.is_number()) throw core::Error(r.field("layer"), "expected a layer index or \"all\", got " + core::describe_json(v) + "; " + allowed);
  return static_cast<int>(r.get_int("layer", -1, 0, 4095, "or \"all\": the branch removed in every layer"));
}

// knockout: (layer, branch) against (layer, hurts_more_than) on one class; specialisation: one
// (layer, branch) on class against than.
void read_lens_claim(Claim& c, core::ConfigReader& r, const ClaimContext& ctx) {
  if (!r.has("run")) throw core::Error(r.field("run"), "is required; allowed: " + core::quoted_list(ctx.runs));
  c.run = r.get_choice("run", "", ctx.runs);
  c.layer = read_layer(r);
  if (!r.has("branch")) throw core::Error(r.field("branch"), "is required; allowed: " + core::quoted_list(branch_names()));
  c.branch = r.get_choice("branch", "", branch_names());
  const std::vector<std::string>& classes = token_class_names(ctx.is_task);
  if (c.kind == ClaimKind::Knockout) {
    if (!r.has("hurts_more_than"))
      throw core::Error(r.field("hurts_more_than"), "is required (the branch whose removal hurts less); allowed: " +
                                                  core::quoted_list(branch_names()));
    c.other_branch = r.get_choice("hurts_more_than", "", branch_names());
    if (c.other_branch == c.branch)
      throw core::Error(r.field("hurts_more_than"), "\"" + c.branch + "\" is the branch of \"branch\"; allowed: another branch");
    std::vector<std::string> any = {"all"};
    any.insert(any.end(), classes.begin(), classes.end());
    c.token_class = r.get_choice("class", "all", any);
    if (c.token_class == "all") c.token_class.clear();
    return;
  }
  for (const char* key : {"class", "than"})
    if (!r.has(key)) throw core::Error(r.field(key), "is required; allowed: " + core::quoted_list(classes));
  c.token_class = r.get_choice("class", "", classes);
  c.than_class = r.get_choice("than", "", classes);
  if (c.than_class == c.token_class)
    throw core::Error(r.field("than"), "\"" + c.than_class + "\" is the class of \"class\"; allowed: another class");
}

// '*' matches any run of characters (none included); every other character itself.
bool glob_match(const std::string& pattern, const std::string& name) {
  size_t p = 0, n = 0, star = std::string::npos, from = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++, from = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p, ++n;
    } else if (star != std::string::npos) {
      p = star + 1, n = ++from;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// "baseline": a variant or group name, a pattern with '*' ("transformerpp-d*"), or a list of
// them; expanded to the project's names (each pattern must match one), never the claim's run.
void read_baseline(Claim& c, core::ConfigReader& r, const ClaimContext& ctx) {
  const std::string allowed = "allowed: a variant or group of the project (" + core::quoted_list(ctx.runs) +
                              "), a pattern with '*' (\"transformerpp-d*\") or a list of them";
  if (!r.has("baseline")) throw core::Error(r.field("baseline"), "is required (the attention-only runs compared); " + allowed);
  const json& v = r.at("baseline");
  std::vector<std::pair<std::string, std::string>> items;  // (field, pattern)
  if (v.is_string()) {
    items.emplace_back(r.field("baseline"), v.get<std::string>());
  } else if (v.is_array() && !v.empty()) {
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string w = r.field("baseline") + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) throw core::Error(w, "expected a string, got " + core::describe_json(v[i]) + "; " + allowed);
      items.emplace_back(w, v[i].get<std::string>());
    }
  } else {
    throw core::Error(r.field("baseline"), "expected a string or a non-empty list of strings, got " + core::describe_json(v) + "; " + allowed);
  }
  for (const auto& [where, pattern] : items) {
    c.baseline_text += (c.baseline_text.empty() ? "" : ", ") + pattern;
    bool any = false;
    for (const std::string& name : ctx.runs) {
      if (!glob_match(pattern, name)) continue;
      any = true;
      if (name == c.run)
        throw core::Error(where, "\"" + pattern + "\" covers \"" + c.run + "\", the claim's run; allowed: the baseline's "
                                                                  "variants or groups only");
      if (std::find(c.baseline.begin(), c.baseline.end(), name) == c.baseline.end()) c.baseline.push_back(name);
    }
    if (!any) throw core::Error(where, "\"" + pattern + "\" is not allowed (it names no run of the project); " + allowed);
  }
}

// efficiency: the hybrid against the baseline of equal quality, on one inference point.
void read_efficiency(Claim& c, core::ConfigReader& r, const ClaimContext& ctx) {
  if (!r.has("run")) throw core::Error(r.field("run"), "is required (the hybrid); allowed: " + core::quoted_list(ctx.runs));
  c.run = r.get_choice("run", "", ctx.runs);
  read_baseline(c, r, ctx);
  c.seq_len = r.require_int("seq_len", 1, int64_t{1} << 20);
  c.batch = r.get_int("batch", 1, 1, 4096);
  c.phase = r.get_choice("phase", "decode", {"decode", "prefill", "e2e"});
  c.metric = parse_metric(r.get_string("metric", ctx.is_task ? "accuracy" : "val/loss"), r.field("metric"), ctx);
  if (!r.has("loss_tolerance"))
    throw core::Error(r.field("loss_tolerance"), "is required: how far apart two runs' final " + c.metric.text +
                                               " may be and count as equal quality (absolute, in its units); allowed: a "
                                               "number > 0, e.g. 0.02 for val/loss in nats");
  c.tolerance = r.get_double("loss_tolerance", 0.0, 0.0, 1e9, /*lo_open=*/true);
  const bool t = r.has("throughput_ratio_at_least"), m = r.has("memory_ratio_at_most");
  if (!t && !m)
    throw core::Error(r.field("throughput_ratio_at_least"),
                "is missing, and so is memory_ratio_at_most; allowed: one or both of \"throughput_ratio_at_least\" "
                "(the hybrid's tokens/s over the baseline's, e.g. 1.0) and \"memory_ratio_at_most\" (its memory over "
                "the baseline's, e.g. 1.0)");
  if (t) c.min_throughput_ratio = r.get_double("throughput_ratio_at_least", 1.0, 0.0, 1e6, /*lo_open=*/true);
  if (m) c.max_memory_ratio = r.get_double("memory_ratio_at_most", 1.0, 0.0, 1e6, /*lo_open=*/true);
}

void read_params(Claim& c, core::ConfigReader& r, const ClaimContext& ctx) {
  if (!ctx.is_task)
    throw core::Error(r.field("claim"), "\"accuracy_at_params\" compares accuracies; this project's runs are text; allowed: "
                                  "\"lower_is_better\", \"higher_is_better\", \"mixer_sandwich\", \"knockout\", "
                                  "\"specialisation\", \"efficiency\"");
  c.metric = parse_metric(r.get_string("metric", "accuracy"), r.field("metric"), ctx);
  if (!r.has("family")) throw core::Error(r.field("family"), "is required; allowed: " + core::quoted_list(family_names()));
  c.family = r.get_choice("family", "", family_names());
  c.max_params = r.require_int("max_params", 1, int64_t{1} << 50);
  const bool lo = r.has("min_accuracy"), hi = r.has("max_accuracy");
  if (lo == hi)
    throw core::Error(r.field(lo ? "max_accuracy" : "min_accuracy"),
                std::string(lo ? "is given with min_accuracy" : "is missing") +
                    "; allowed: exactly one of \"min_accuracy\" (a model of the family reaches it) and \"max_accuracy\" "
                    "(every model of the family stays below it)");
  c.at_least = lo;
  c.threshold = r.get_double(lo ? "min_accuracy" : "max_accuracy", 0.0, 0.0, 1.0);
}

// "smallest_effect": 0.1, or {"value": 0.1, "from": "paper" | "margin"}.
void read_smallest_effect(Claim& c, core::ConfigReader& r) {
  if (!r.has("smallest_effect")) return;
  const std::string where = r.field("smallest_effect");
  const std::string allowed = "allowed: a number > 0 in the metric's units (the smallest effect of interest), or "
                              "{\"value\": 0.1, \"from\": \"paper\"} when it is the paper's effect";
  const json& v = r.at("smallest_effect");
  double value = 0.0;
  if (v.is_number()) {
    value = v.get<double>();
  } else if (v.is_object()) {
    core::ConfigReader m(v, where, {"value", "from"});
    if (!m.has("value")) throw core::Error(where + ".value", "is required; " + allowed);
    value = m.get_double("value", 0.0, 0.0, 1e12, /*lo_open=*/true);
    c.smallest_effect_from_paper = m.get_choice("from", "margin", {"margin", "paper"}) == "paper";
    m.finish();
  } else {
    throw core::Error(where, "expected a number or an object, got " + core::describe_json(v) + "; " + allowed);
  }
  if (!(value > 0.0) || !std::isfinite(value)) throw core::Error(where, "expected a number > 0, got " + core::describe_json(v) + "; " + allowed);
  c.smallest_effect = value;
}

}  // namespace

const std::vector<std::string>& claim_kind_names() {
  static const std::vector<std::string> names = {"lower_is_better", "higher_is_better", "mixer_sandwich",
                                                 "accuracy_at_params", "knockout", "specialisation", "efficiency"};
  return names;
}

const std::vector<std::string>& branch_names() {
  static const std::vector<std::string> names = {"gss", "attn", "ffn"};
  return names;
}

const std::vector<std::string>& token_class_names(bool is_task) {
  static const std::vector<std::string> text = {"copyable", "novel"};
  static const std::vector<std::string> task = {"key", "value", "query", "filler", "answer", "other"};
  return is_task ? task : text;
}

const char* to_string(ClaimKind kind) { return claim_kind_names()[static_cast<size_t>(kind)].c_str(); }

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names = {"ssm", "attention", "hybrid"};
  return names;
}

std::vector<Claim> read_claims(const json& section, const std::string& where, const ClaimContext& ctx) {
  if (!section.is_array())
    throw core::Error(where, "expected a list of claims {\"claim\": kind, ...}, got " + core::describe_json(section) +
                           "; allowed kinds: " + core::quoted_list(claim_kind_names()));
  std::vector<Claim> out;
  for (size_t i = 0; i < section.size(); ++i) {
    const std::string w = where + "[" + std::to_string(i) + "]";
    const json& c = section[i];
    if (!c.is_object()) throw core::Error(w, "expected an object {\"claim\": kind, ...}, got " + core::describe_json(c));
    Claim claim;
    claim.kind = kind_from(c, w);
    claim.where = w;
    claim.json = c;
    core::ConfigReader r(c, w, keys_of(claim.kind));
    r.ignore("claim");
    claim.title = r.get_string("title", "");
    claim.paper = r.get_string("paper", "");
    claim.primary = r.get_choice("role", "primary", {"primary", "secondary"}) == "primary";
    read_smallest_effect(claim, r);
    if (claim.kind == ClaimKind::MixerSandwich) {
      read_sandwich(claim, r, ctx);
    } else if (claim.kind == ClaimKind::AccuracyAtParams) {
      read_params(claim, r, ctx);
    } else if (claim.kind == ClaimKind::Knockout || claim.kind == ClaimKind::Specialisation) {
      read_lens_claim(claim, r, ctx);
    } else if (claim.kind == ClaimKind::Efficiency) {
      read_efficiency(claim, r, ctx);
    } else {
      read_compare(claim, r, ctx);
    }
    r.finish();
    out.push_back(std::move(claim));
  }
  return out;
}

std::string margin_words(const Claim& c) {
  return std::string(c.smallest_effect_from_paper ? "the paper's effect" : "the smallest effect of interest") + " (" +
         core::format_number(c.smallest_effect) + ")";
}

std::string layer_words(int layer) { return layer < 0 ? "in every layer" : "at layer " + std::to_string(layer); }

std::string statement(const Claim& c) {
  switch (c.kind) {
    case ClaimKind::LowerIsBetter:
    case ClaimKind::HigherIsBetter:
      return c.metric.text + (c.best ? " (best)" : !c.budget_axis.empty() ? " (at " + c.budget_axis + " budgets)" : " (final)") + ": " + c.better +
             (c.kind == ClaimKind::LowerIsBetter ? " lower than " : " higher than ") + c.than;
    case ClaimKind::MixerSandwich:
      return c.run + ": GSS weight highest in the first and last " +
             (c.edge_layers == 1 ? std::string("layers") : std::to_string(c.edge_layers) + " layers each") +
             ", attention weight highest in the middle layers (final mixer weights, or their effective shares where "
             "every replica has them)";
    case ClaimKind::AccuracyAtParams:
      return c.metric.text + ": " +
             (c.at_least ? "some " + c.family + " model with at most " + std::to_string(c.max_params) +
                               " parameters reaches " + core::format_number(c.threshold)
                         : "every " + c.family + " model with at most " + std::to_string(c.max_params) +
                               " parameters stays below " + core::format_number(c.threshold));
    case ClaimKind::Knockout:
      return c.run + ": removing " + c.branch + " " + layer_words(c.layer) + " raises the loss" +
             (c.token_class.empty() ? "" : " on " + c.token_class + " tokens") + " more than removing " + c.other_branch;
    case ClaimKind::Specialisation:
      return c.run + ": removing " + c.branch + " " + layer_words(c.layer) + " raises the loss on " + c.token_class +
             " tokens more than on " + c.than_class + " tokens";
    case ClaimKind::Efficiency: {
      std::string figures;
      if (c.min_throughput_ratio > 0)
        figures = c.phase + " tokens/s at least " + core::format_number(c.min_throughput_ratio) + "x the baseline's";
      if (c.max_memory_ratio > 0)
        figures += (figures.empty() ? "" : ", ") + std::string("memory at most ") + core::format_number(c.max_memory_ratio) +
                   (figures.empty() ? "x the baseline's" : "x");
      return c.run + " against " + c.baseline_text + " at equal " + c.metric.text + " (within " +
             core::format_number(c.tolerance) + "), L = " + std::to_string(c.seq_len) + ", batch " + std::to_string(c.batch) +
             ": " + figures;
    }
  }
  return {};
}

}  // namespace pha::analysis
