// The "search" section: every value read with its default recorded, every error at its full
// field path with a message saying what was found and what is allowed.
#include "search/search_spec.h"

#include <gtest/gtest.h>

#include "core/error.h"

using nlohmann::json;
using pha::search::Range;
using pha::search::SearchSpec;

namespace {

json minimal() {
  return json{{"space", {{"training.lr", {0.001, 0.003}}}}, {"budget", {{"min", 50}, {"max", 450}}}, {"objective", "val/bpb"}};
}

// The error from_json throws: its field and a phrase of its message.
void expect_error(const json& section, const std::string& where, const std::string& phrase,
                  const std::string& prefix = "search") {
  try {
    SearchSpec::from_json(section, prefix);
    ADD_FAILURE() << "no error; expected one at " << where;
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
  }
}

json with(json section, const json& patch) {
  section.merge_patch(patch);
  return section;
}

TEST(SearchSpec, ParsesTheDocumentedExample) {
  const json section = json::parse(R"({
    "space": {"training.lr": {"log_uniform": [1e-4, 3e-3]}, "training.warmup_steps": [10, 30],
              "model.gss.state": {"int": [16, 64]}, "training.weight_decay": {"uniform": [0.0, 0.2]}},
    "patterns": {"n_layers": 8, "kinds": ["gss", "attn", "parallel"], "attention": [1, 3],
                 "first": "gss", "last": null, "symmetric": false, "max": 40},
    "budget": {"resource": "steps", "min": 50, "max": 450, "eta": 3, "brackets": 1, "concurrency": 2},
    "objective": "val/bpb", "seeds": 1, "sampler": {"kind": "random", "seed": 7, "trials": 27},
    "equal_params": {"target": 1286172, "tolerance": 0.03}})");
  const SearchSpec s = SearchSpec::from_json(section);
  ASSERT_EQ(s.space.size(), 4u);
  EXPECT_EQ(s.space[0].key, "model.gss.state") << "alphabetical key order";
  EXPECT_EQ(s.space[0].range.kind, Range::Kind::Int);
  EXPECT_EQ(s.space[1].range.kind, Range::Kind::LogUniform);
  EXPECT_DOUBLE_EQ(s.space[1].range.lo, 1e-4);
  EXPECT_EQ(s.space[2].range.kind, Range::Kind::Choices);
  EXPECT_EQ(s.space[2].range.choices, (std::vector<json>{10, 30}));
  EXPECT_EQ(s.space[3].range.kind, Range::Kind::Uniform);
  EXPECT_TRUE(s.patterns.present);
  EXPECT_EQ(s.patterns.kinds, (std::vector<std::string>{"gss", "attn", "parallel"}));
  EXPECT_EQ(s.patterns.min_attention, 1);
  EXPECT_EQ(s.patterns.max_attention, 3);
  EXPECT_EQ(s.patterns.first, "gss");
  EXPECT_EQ(s.patterns.last, "");
  EXPECT_EQ(s.budget.concurrency, 2);
  ASSERT_EQ(s.objectives.size(), 1u);
  EXPECT_EQ(s.objectives[0].goal, pha::core::MetricGoal::Minimize);
  EXPECT_EQ(s.replicas, 1);
  EXPECT_TRUE(s.seeds.empty());
  EXPECT_EQ(s.sampler.kind, "random");
  EXPECT_EQ(s.sampler.seed, 7u);
  EXPECT_EQ(s.sampler.trials, 27);
  EXPECT_TRUE(s.equal_params.enabled);
  EXPECT_EQ(s.equal_params.target, 1286172);
  EXPECT_EQ(s.used["space"]["model.gss.state"], (json{{"int", {16, 64}}}));
  EXPECT_EQ(s.used["objective"], (json::array({{{"metric", "val/bpb"}, {"direction", "min"}}})));
}

TEST(SearchSpec, RecordsDefaults) {
  const SearchSpec s = SearchSpec::from_json(minimal());
  EXPECT_EQ(s.budget.eta, 3);
  EXPECT_EQ(s.budget.brackets, 1);
  EXPECT_EQ(s.sampler.kind, "grid");
  EXPECT_FALSE(s.patterns.present);
  EXPECT_FALSE(s.equal_params.enabled);
  EXPECT_EQ(s.used["budget"], (json{{"resource", "steps"}, {"min", 50.0}, {"max", 450.0}, {"eta", 3}, {"brackets", 1}, {"concurrency", 1}}));
  EXPECT_EQ(s.used["sampler"], (json{{"kind", "grid"}}));
  EXPECT_EQ(s.used["seeds"], 1);
  EXPECT_TRUE(s.used["patterns"].is_null());
}

TEST(SearchSpec, SeedsAndDirectionsAndPresets) {
  SearchSpec s = SearchSpec::from_json(with(minimal(), {{"seeds", {3, 5}}}));
  EXPECT_EQ(s.seeds, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(s.replicas, 2);
  s = SearchSpec::from_json(with(minimal(), {{"seeds", 3}}));
  EXPECT_TRUE(s.seeds.empty());
  EXPECT_EQ(s.replicas, 3);
  s = SearchSpec::from_json(with(minimal(), {{"objective", {{"metric", "val/score"}, {"direction", "max"}}}}));
  EXPECT_EQ(s.objectives[0].goal, pha::core::MetricGoal::Maximize) << "an explicit direction for an unknown metric";
  s = SearchSpec::from_json(with(minimal(), {{"objective", {"val/bpb", "val/accuracy"}}}));
  ASSERT_EQ(s.objectives.size(), 2u);
  EXPECT_EQ(s.objectives[1].goal, pha::core::MetricGoal::Maximize);
  s = SearchSpec::from_json(with(minimal(), {{"equal_params", {{"preset", "pha-tiny"}}}}));
  EXPECT_EQ(s.equal_params.preset, "pha-tiny");
  EXPECT_EQ(s.equal_params.target, 0);
  EXPECT_DOUBLE_EQ(s.equal_params.tolerance, 0.03);
}

TEST(SearchSpec, RefusesUnknownKeysAndWrongTypes) {
  expect_error(with(minimal(), {{"spaec", 1}}), "search.spaec", "did you mean \"space\"");
  expect_error(with(minimal(), {{"budget", {{"etaa", 3}}}}), "search.budget.etaa", "did you mean \"eta\"");
  expect_error(with(minimal(), {{"space", {{"training.lr", "fast"}}}}), "search.space.training.lr",
               "expected a non-empty list of values");
  expect_error(with(minimal(), {{"budget", {{"eta", "3"}}}}), "search.budget.eta", "expected an integer");
  expect_error(with(minimal(), {{"space", {{"training.lr", {{"uniform", {0.1, 0.2}}, {"int", {1, 2}}}}}}}),
               "search.space.training.lr", "allowed: exactly one");
  expect_error(with(minimal(), {{"space", {{"training.lr", {0.1, {1, 2}}}}}}), "search.space.training.lr[1]",
               "expected a number, string or boolean");
  expect_error(with(minimal(), {{"budget", nullptr}}), "search.budget", "is required");
  expect_error(with(minimal(), {{"objective", nullptr}}), "search.objective", "is required");
}

TEST(SearchSpec, RefusesBadSpaceKeysAndRanges) {
  const json random = {{"sampler", {{"kind", "random"}, {"trials", 4}}}};
  auto space = [&](const json& key_value) { return with(with(minimal(), random), {{"space", key_value}}); };
  expect_error(space({{"training.lr", {{"uniform", {0.2, 0.1}}}}}), "search.space.training.lr.uniform",
               "lo 0.2 >= hi 0.1; allowed: lo < hi");
  expect_error(space({{"training.lr", {{"log_uniform", {0, 0.1}}}}}), "search.space.training.lr.log_uniform",
               "lo 0 is out of range; allowed: lo > 0");
  expect_error(space({{"training.lr", {{"log_uniform", {0.1}}}}}), "search.space.training.lr.log_uniform",
               "expected [lo, hi] (two numbers)");
  expect_error(space({{"model.gss.state", {{"int", {1.5, 4}}}}}), "search.space.model.gss.state.int", "two integers");
  expect_error(space({{"model.gss.state", {{"int", {8, 4}}}}}), "search.space.model.gss.state.int", "lo 8 > hi 4");
  expect_error(space({{"training.lr", json::array()}}), "search.space.training.lr", "is an empty list");
  expect_error(space({{"training.lr", {0.1, 0.1}}}), "search.space.training.lr[1]", "listed twice");
  expect_error(space({{"data.seq_len", {64, 128}}}), "search.space.data.seq_len", "\"model.\" or \"training.\"");
  expect_error(space({{"model.layers", {1}}}), "search.space.model.layers", "search.patterns");
  expect_error(space({{"model.n_layers", {4, 6}}}), "search.space.model.n_layers", "search.patterns");
  expect_error(space({{"model.variant", {"pha"}}}), "search.space.model.variant", "search.patterns");
  expect_error(space({{"model.gss", json::array({1})}, {"model.gss.state", json::array({1})}}), "search.space.model.gss.state", "lies inside");
  expect_error(space(nullptr), "search.space", "at least one key to vary");
}

TEST(SearchSpec, RefusesBadBudgets) {
  try {
    SearchSpec::from_json(with(minimal(), {{"budget", {{"eta", 1}}}}));
    ADD_FAILURE() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_STREQ(e.what(), "search.budget.eta: 1 is out of range; allowed: 2 to 10");
  }
  expect_error(with(minimal(), {{"budget", {{"brackets", 4}, {"eta", 3}}}, {"sampler", {{"kind", "random"}}}}),
               "search.budget.brackets", "allowed: 1 to 3");
  expect_error(with(minimal(), {{"budget", {{"min", 0}}}}), "search.budget.min", "out of range");
  expect_error(with(minimal(), {{"budget", {{"max", 40}}}}), "search.budget.max", "out of range; allowed: >= 50");
  expect_error(with(minimal(), {{"budget", {{"resource", "epochs"}}}}), "search.budget.resource", "\"steps\", \"tokens\", \"flops\"");
  expect_error(with(minimal(), {{"budget", {{"concurrency", 0}}}}), "search.budget.concurrency", "allowed: 1 to 64");
}

TEST(SearchSpec, RefusesSamplersThatDoNotFitTheSpace) {
  expect_error(with(minimal(), {{"space", {{"training.lr", {{"log_uniform", {1e-4, 1e-3}}}}}}}), "search.space.training.lr",
               "a grid needs a list of values");
  expect_error(with(minimal(), {{"sampler", {{"kind", "random"}}}}), "search.sampler.trials", "is required");
  expect_error(with(minimal(), {{"sampler", {{"trials", 5}}}}), "search.sampler.trials", "\"random\" only");
  expect_error(with(minimal(), {{"sampler", {{"kind", "sobol"}}}}), "search.sampler.kind", "\"grid\", \"random\"");
  expect_error(with(minimal(), {{"budget", {{"brackets", 2}}}}), "search.budget.brackets", "Hyperband");
  expect_error(with(minimal(), {{"budget", {{"brackets", 2}}}, {"sampler", {{"kind", "random"}, {"trials", 9}}}}),
               "search.sampler.trials", "set by Hyperband");
}

TEST(SearchSpec, RefusesBadPatterns) {
  auto patterns = [](const json& p) { return with(minimal(), {{"patterns", p}}); };
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss", "mamba"}}}), "search.patterns.kinds[1]", "is not a layer kind");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"attn+gss"}}}), "search.patterns.kinds[0]", "(\"gss+attn\")");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"ffn"}}}), "search.patterns.kinds[0]", "is not a layer kind");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss", "gss"}}}), "search.patterns.kinds[1]", "listed twice");
  expect_error(patterns({{"n_layers", 0}, {"kinds", {"gss"}}}), "search.patterns.n_layers", "allowed: 1 to 64");
  expect_error(patterns({{"kinds", {"gss"}}}), "search.patterns.n_layers", "is required");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss"}}, {"attention", 1}}), "search.patterns", "no pattern of 4 layers");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss", "attn"}}, {"first", "attn"}, {"last", "gss"}, {"symmetric", true}}),
               "search.patterns", "no pattern");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss", "attn"}}, {"attention", {3, 1}}}), "search.patterns.attention",
               "min 3 > max 1");
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss", "attn"}}, {"attention", 5}}), "search.patterns.attention",
               "allowed: 0 to 4");
  expect_error(patterns({{"n_layers", 64}, {"kinds", {"gss", "attn"}}}), "search.patterns.max", "more than 100000");
  expect_error(patterns(json::parse(R"({"list": [["gss"]], "n_layers": 1})")), "search.patterns.n_layers", "cannot be combined");
  expect_error(patterns(json::parse(R"({"list": [["gss", "attn"], ["gss", "attn"]]})")), "search.patterns.list[1]",
               "repeats list[0]");
  expect_error(patterns(json::parse(R"({"list": [["gss", "lstm"]]})")), "search.patterns.list[0][1]", "is not a layer kind");
  expect_error(patterns(json::parse(R"({"list": []})")), "search.patterns.list", "non-empty list of patterns");
  // A section read under another name reports that name, the pattern checks included.
  expect_error(patterns({{"n_layers", 4}, {"kinds", {"gss"}}, {"attention", 1}}), "variants[0].search.patterns", "no pattern",
               "variants[0].search");
}

TEST(SearchSpec, RefusesObjectivesWithoutADirection) {
  expect_error(with(minimal(), {{"objective", "val/foo"}}), "search.objective", "no known direction");
  expect_error(with(minimal(), {{"objective", "lr"}}), "search.objective", "a measurement");
  expect_error(with(minimal(), {{"objective", {{"metric", "val/foo"}}}}), "search.objective.metric", "\"direction\"");
  expect_error(with(minimal(), {{"objective", {{"metric", "val/bpb"}, {"direction", "max"}}}}),
               "search.objective.direction", "contradicts the metric table");
  expect_error(with(minimal(), {{"objective", {"val/bpb", "params", "val/accuracy"}}}), "search.objective",
               "has 3 entries; allowed: 1 or 2 objectives");
  expect_error(with(minimal(), {{"objective", {"val/bpb", "val/bpb"}}}), "search.objective[1]", "listed twice");
  expect_error(with(minimal(), {{"objective", {"val/bpb", "val/foo"}}}), "search.objective[1]", "no known direction");
}

TEST(SearchSpec, RefusesBadSeedsAndEqualParams) {
  expect_error(with(minimal(), {{"seeds", 0}}), "search.seeds", "out of range");
  expect_error(with(minimal(), {{"seeds", {1, 1}}}), "search.seeds[1]", "listed twice");
  expect_error(with(minimal(), {{"seeds", {1, -2}}}), "search.seeds[1]", "non-negative integer");
  expect_error(with(minimal(), {{"equal_params", {{"tolerance", 0.03}}}}), "search.equal_params", "has neither");
  expect_error(with(minimal(), {{"equal_params", {{"target", 5}, {"preset", "pha-tiny"}}}}), "search.equal_params", "has both");
  expect_error(with(minimal(), {{"equal_params", {{"target", 0}}}}), "search.equal_params.target", "out of range");
  expect_error(with(minimal(), {{"equal_params", {{"target", 5}, {"tolerance", 0.6}}}}), "search.equal_params.tolerance",
               "out of range");
}

TEST(SearchSpec, ThePromotionRuleNeedsReplicasAndOneObjective) {
  EXPECT_FALSE(SearchSpec::from_json(minimal()).promotion.not_worse) << "the top 1/eta by default";
  EXPECT_EQ(SearchSpec::from_json(minimal()).used["promotion"], (json{{"rule", "top"}}));
  const SearchSpec s = SearchSpec::from_json(with(minimal(), {{"seeds", 2}, {"promotion", {{"rule", "not_worse"}}}}));
  EXPECT_TRUE(s.promotion.not_worse);
  EXPECT_DOUBLE_EQ(s.promotion.alpha, 0.05);
  EXPECT_EQ(s.used["promotion"], (json{{"rule", "not_worse"}, {"alpha", 0.05}, {"max_factor", 2.0}}));
  expect_error(with(minimal(), {{"seeds", 2}, {"promotion", {{"rule", "not_worse"}, {"max_factor", 0.5}}}}),
               "search.promotion.max_factor", "fewer than the top");
  expect_error(with(minimal(), {{"promotion", {{"max_factor", 3}}}}), "search.promotion.max_factor", "\"not_worse\" only");
  expect_error(with(minimal(), {{"promotion", {{"rule", "not_worse"}}}}), "search.promotion.rule", "search.seeds of 2 or more");
  expect_error(with(minimal(), {{"seeds", 2}, {"objective", {"val/bpb", "params"}}, {"promotion", {{"rule", "not_worse"}}}}),
               "search.promotion.rule", "one objective");
  expect_error(with(minimal(), {{"seeds", 2}, {"promotion", {{"rule", "not_worse"}, {"alpha", 0.7}}}}),
               "search.promotion.alpha", "out of range");
  expect_error(with(minimal(), {{"promotion", {{"alpha", 0.1}}}}), "search.promotion.alpha", "\"not_worse\" only");
  expect_error(with(minimal(), {{"promotion", {{"rule", "best"}}}}), "search.promotion.rule", "not allowed");
}

}  // namespace
