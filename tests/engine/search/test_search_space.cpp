// Patterns and trials: counts against hand-computed numbers, lexicographic order, the evenly
// spaced subset, the grid's order and the random sampler's determinism.
#include "search/search_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "core/config_reader.h"
#include "core/error.h"
#include "model/model_config.h"
#include "model/presets.h"

using nlohmann::json;
using pha::search::PatternSpace;
using pha::search::SearchSpec;
using Patterns = std::vector<std::vector<std::string>>;

namespace {

PatternSpace space(int n, std::vector<std::string> kinds) {
  PatternSpace p;
  p.present = true;
  p.n_layers = n;
  p.kinds = std::move(kinds);
  return p;
}

TEST(Patterns, ExactlyOneAttentionLayerOfFourInLexicographicOrder) {
  PatternSpace p = space(4, {"gss", "attn"});
  p.min_attention = p.max_attention = 1;
  EXPECT_EQ(pha::search::generate_patterns(p), (Patterns{{"gss", "gss", "gss", "attn"},
                                                         {"gss", "gss", "attn", "gss"},
                                                         {"gss", "attn", "gss", "gss"},
                                                         {"attn", "gss", "gss", "gss"}}));
  p.kinds = {"attn", "gss"};  // the order of kinds is the order of the patterns
  EXPECT_EQ(pha::search::generate_patterns(p).front(), (std::vector<std::string>{"attn", "gss", "gss", "gss"}));
}

TEST(Patterns, CountsMatchHandComputedNumbers) {
  PatternSpace p = space(4, {"gss", "attn"});
  EXPECT_EQ(pha::search::count_patterns(p), 16);
  p.min_attention = 1, p.max_attention = 2;
  EXPECT_EQ(pha::search::count_patterns(p), 4 + 6) << "C(4,1) + C(4,2)";
  p = space(4, {"gss", "attn"});
  p.first = "attn";
  EXPECT_EQ(pha::search::count_patterns(p), 8);
  p.first = p.last = "gss";
  p.min_attention = p.max_attention = 1;
  EXPECT_EQ(pha::search::generate_patterns(p), (Patterns{{"gss", "gss", "attn", "gss"}, {"gss", "attn", "gss", "gss"}}));
  p = space(3, {"gss", "gss+attn", "attn+ffn", "sequential"});
  EXPECT_EQ(pha::search::count_patterns(p), 64);
  p.max_attention = 0;
  EXPECT_EQ(pha::search::generate_patterns(p), (Patterns{{"gss", "gss", "gss"}})) << "gss+attn and attn+ffn carry attention";
}

TEST(Patterns, SymmetricPatternsChooseHalfTheLayers) {
  PatternSpace p = space(4, {"gss", "attn"});
  p.symmetric = true;
  EXPECT_EQ(pha::search::generate_patterns(p), (Patterns{{"gss", "gss", "gss", "gss"},
                                                         {"gss", "attn", "attn", "gss"},
                                                         {"attn", "gss", "gss", "attn"},
                                                         {"attn", "attn", "attn", "attn"}}))
      << "2 free layers";
  p.n_layers = 5;
  EXPECT_EQ(pha::search::count_patterns(p), 8) << "3 free layers, the middle one its own mirror";
  p.min_attention = p.max_attention = 1;
  EXPECT_EQ(pha::search::generate_patterns(p), (Patterns{{"gss", "gss", "attn", "gss", "gss"}}));
  p.n_layers = 4;
  p.min_attention = p.max_attention = 2;
  EXPECT_EQ(pha::search::count_patterns(p), 2) << "a mirrored pair carries two attention layers";
  p.min_attention = p.max_attention = 1;
  EXPECT_THROW(pha::search::generate_patterns(p), pha::core::Error) << "an odd count cannot be mirrored in 4 layers";
}

TEST(Patterns, MaxTakesAnEvenlySpacedSubset) {
  PatternSpace p = space(4, {"gss", "attn"});
  p.max = 4;  // indices 0, 4, 8, 12 of 16: binary digits, gss = 0
  EXPECT_EQ(pha::search::generate_patterns(p), (Patterns{{"gss", "gss", "gss", "gss"},
                                                         {"gss", "attn", "gss", "gss"},
                                                         {"attn", "gss", "gss", "gss"},
                                                         {"attn", "attn", "gss", "gss"}}));
  p.max = 100;
  EXPECT_EQ(pha::search::generate_patterns(p).size(), 16u) << "max above the count: all";
}

TEST(Patterns, HugeSpacesAreCountedExactly) {
  PatternSpace p = space(64, pha::search::layer_kind_tokens());  // 7^64 candidates
  EXPECT_EQ(pha::search::count_patterns(p), std::numeric_limits<int64_t>::max()) << "saturated";
  EXPECT_THROW(pha::search::generate_patterns(p), pha::core::Error) << "all of them is too many";
  p.max = 5;
  const Patterns a = pha::search::generate_patterns(p);
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0], std::vector<std::string>(64, "parallel"));
  EXPECT_EQ(std::set<std::vector<std::string>>(a.begin(), a.end()).size(), 5u);
  EXPECT_EQ(a, pha::search::generate_patterns(p));
  // Index floor(7^64 / 5): in base 7 the digits of 1/5 = 0.12541254...: kinds 1, 2, 5, 4 of the list.
  EXPECT_EQ(std::vector<std::string>(a[1].begin(), a[1].begin() + 4),
            (std::vector<std::string>{"sequential", "attn", "gss+ffn", "gss+attn"}));
}

TEST(Patterns, KindsAreNormalisedAndBecomeBuilderLayers) {
  EXPECT_EQ(pha::search::normalise_layer_kind("gss+attn+ffn", "x"), "parallel");
  EXPECT_EQ(pha::search::normalise_layer_kind("attn+ffn", "x"), "attn+ffn");
  try {
    pha::search::normalise_layer_kind("ffn+attn", "search.patterns.first");
    ADD_FAILURE() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "search.patterns.first");
    EXPECT_NE(std::string(e.what()).find("(\"attn+ffn\")"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(pha::search::carries_attention("sequential"));
  EXPECT_FALSE(pha::search::carries_attention("gss+ffn"));
  const json layers = pha::search::pattern_to_layers({"gss", "attn+ffn", "parallel"});
  EXPECT_EQ(layers, json::parse(R"(["gss", {"kind": "parallel", "sublayers": [["attn", "ffn"]]}, "parallel"])"));
  json model = pha::model::to_json(pha::model::preset("pha-tiny"));
  model["variant"] = "pattern";
  model["n_layers"] = 3;
  model["layers"] = layers;
  const auto c = pha::model::model_config_from_json(model, "model");
  ASSERT_EQ(c.layers.size(), 3u);
  EXPECT_EQ(c.layers[1].sublayers[0].branches, (std::vector<pha::model::Branch>{pha::model::Branch::Attention, pha::model::Branch::Ffn}));
}

SearchSpec grid_spec() {
  return SearchSpec::from_json(json::parse(R"({
    "space": {"training.warmup_steps": [10, 20, 30], "training.lr": [0.001, 0.003]},
    "patterns": {"list": [["gss", "attn"], ["attn", "gss"]]},
    "budget": {"min": 50, "max": 450}, "objective": "val/bpb"})"));
}

TEST(Trials, GridIsTheProductInKeyOrderWithThePatternFastest) {
  const SearchSpec spec = grid_spec();
  const auto trials = pha::search::generate_trials(spec, 0);
  ASSERT_EQ(trials.size(), 12u);
  EXPECT_EQ(pha::search::grid_size(spec), 12);
  EXPECT_EQ(pha::search::generate_trials(spec, 5, 3).size(), 12u) << "count and stream do not apply to a grid";
  EXPECT_EQ(trials[0].label, "lr=0.001,warmup_steps=10,layers=gss-attn");
  EXPECT_EQ(trials[1].label, "lr=0.001,warmup_steps=10,layers=attn-gss");
  EXPECT_EQ(trials[2].label, "lr=0.001,warmup_steps=20,layers=gss-attn");
  EXPECT_EQ(trials[6].label, "lr=0.003,warmup_steps=10,layers=gss-attn");
  EXPECT_EQ(trials[11].index, 11);
  EXPECT_EQ(trials[0].values, json::parse(R"({"training.lr": 0.001, "training.warmup_steps": 10, "pattern": ["gss", "attn"]})"));
  EXPECT_EQ(trials[0].patch, json::parse(R"({"training": {"lr": 0.001, "warmup_steps": 10},
      "model": {"variant": "pattern", "n_layers": 2, "layers": ["gss", "attn"]}})"));
}

SearchSpec random_spec(uint64_t seed) {
  json s = json::parse(R"({
    "space": {"training.lr": {"log_uniform": [1e-4, 3e-3]}, "model.gss.state": {"int": [16, 18]},
              "training.weight_decay": {"uniform": [0.0, 0.2]}, "model.attention.kind": ["cosine", "softmax"]},
    "patterns": {"n_layers": 4, "kinds": ["gss", "attn"], "attention": 1},
    "budget": {"min": 50, "max": 450}, "objective": "val/bpb", "sampler": {"kind": "random", "trials": 9}})");
  s["sampler"]["seed"] = seed;
  return SearchSpec::from_json(s);
}

TEST(Trials, RandomDrawsAreDeterministicPerSeedAndStream) {
  const auto a = pha::search::generate_trials(random_spec(7), 9);
  const auto b = pha::search::generate_trials(random_spec(7), 9);
  ASSERT_EQ(a.size(), 9u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].values, b[i].values);
  EXPECT_NE(a[0].values, pha::search::generate_trials(random_spec(7), 9, 1)[0].values) << "another stream";
  EXPECT_NE(a[0].values, pha::search::generate_trials(random_spec(8), 9)[0].values) << "another seed";
  const double lr = a[0].values["training.lr"].get<double>();
  EXPECT_EQ(a[0].patch["training"]["lr"], lr);
  EXPECT_NE(a[0].label.find("lr=" + pha::core::format_number(lr)), std::string::npos) << a[0].label;
  EXPECT_NE(a[0].label.find("kind="), std::string::npos) << a[0].label;
  EXPECT_THROW(pha::search::generate_trials(random_spec(7), 0), pha::core::Error);
}

TEST(Trials, RandomDrawsCoverTheirRanges) {
  const auto trials = pha::search::generate_trials(random_spec(1), 400);
  std::set<int64_t> states;
  std::set<std::string> kinds;
  std::set<json> patterns;
  int below_middle = 0;
  for (const auto& t : trials) {
    const double lr = t.values["training.lr"].get<double>();
    const double wd = t.values["training.weight_decay"].get<double>();
    EXPECT_TRUE(lr >= 1e-4 && lr <= 3e-3) << lr;
    EXPECT_TRUE(wd >= 0.0 && wd <= 0.2) << wd;
    ASSERT_TRUE(t.values["model.gss.state"].is_number_integer());
    states.insert(t.values["model.gss.state"].get<int64_t>());
    kinds.insert(t.values["model.attention.kind"].get<std::string>());
    patterns.insert(t.values["pattern"]);
    below_middle += lr < std::sqrt(1e-4 * 3e-3);
  }
  EXPECT_EQ(states, (std::set<int64_t>{16, 17, 18})) << "int is inclusive";
  EXPECT_EQ(kinds.size(), 2u);
  EXPECT_EQ(patterns.size(), 4u);
  EXPECT_GT(below_middle, 150) << "log-uniform: half below the geometric mean";
  EXPECT_LT(below_middle, 250);
}

TEST(Trials, LabelsUseTheLastKeySegmentUnlessTwoKeysShareIt) {
  const SearchSpec spec = SearchSpec::from_json(json::parse(R"({
    "space": {"model.gss.state": [16], "model.attention.state": [2], "training.lr": [0.01]},
    "budget": {"min": 1, "max": 9}, "objective": "val/loss"})"));
  EXPECT_EQ(pha::search::generate_trials(spec, 0).at(0).label, "attention.state=2,gss.state=16,lr=0.01");
}

}  // namespace
