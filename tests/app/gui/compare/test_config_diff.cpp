// ConfigDiff (pure), best-value inference and the Pareto front, without widgets.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gui/compare/compare_data.h"
#include "gui/compare/config_diff.h"
#include "gui/compare/run_costs.h"

using nlohmann::json;
using namespace pha::gui;

namespace {

std::vector<std::string> pathsOf(const std::vector<DiffRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.path);
  return out;
}

}  // namespace

TEST(ConfigDiff, FlattensObjectsAndArraysOfObjectsKeepsScalarArraysWhole) {
  json j = {{"model", {{"d_model", 64}, {"pattern", {"gss", "attn"}}, {"layers", {{{"kind", "gss"}}, {{"kind", "attn"}}}}}},
            {"empty", json::object()}};
  auto flat = flattenJson(j);
  std::vector<std::string> paths;
  for (const auto& [p, v] : flat) paths.push_back(p);
  EXPECT_EQ(paths, (std::vector<std::string>{"empty", "model.d_model", "model.layers[0].kind", "model.layers[1].kind",
                                             "model.pattern"}));
  EXPECT_EQ(flat[4].second, json({"gss", "attn"}));
}

TEST(ConfigDiff, ListsOnlyDifferingPathsIncludingOneSided) {
  json a = {{"model", {{"d_model", 64}, {"n_layers", 4}}}, {"train", {{"lr", 1e-3}, {"steps", 100}}}};
  json b = {{"model", {{"d_model", 128}, {"n_layers", 4}}}, {"train", {{"lr", 1e-3}, {"steps", 100.0}}}, {"seed", 2}};
  auto rows = diffConfigs({a, b});
  EXPECT_EQ(pathsOf(rows), (std::vector<std::string>{"model.d_model", "seed"}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(diffCellText(rows[0].values[0]), "64");
  EXPECT_EQ(diffCellText(rows[0].values[1]), "128");
  EXPECT_EQ(diffCellText(rows[1].values[0]), "(absent)");
  EXPECT_EQ(diffCellText(rows[1].values[1]), "2");
}

TEST(ConfigDiff, ThreeConfigsAndIdenticalAndNull) {
  json a = {{"x", 1}, {"y", "s"}};
  EXPECT_TRUE(diffConfigs({a, a, a}).empty());
  json c = a;
  c["y"] = "t";
  EXPECT_EQ(pathsOf(diffConfigs({a, a, c})), (std::vector<std::string>{"y"}));
  // A config that did not parse (null) has no paths: everything the other has differs.
  EXPECT_EQ(pathsOf(diffConfigs({a, json()})), (std::vector<std::string>{"x", "y"}));
}

TEST(BestValue, ReadsWhichExtremeBestStepHolds) {
  pha::store::MetricSummary s;
  s.min = 1.0;
  s.max = 5.0;
  s.best_step = 7;
  s.last = 2.0;
  std::vector<pha::store::MetricBucket> buckets(10);
  for (int i = 0; i < 10; ++i) {
    buckets[i].step_first = buckets[i].step_last = i;
    buckets[i].min = buckets[i].max = 3.0;
  }
  buckets[7].min = buckets[7].max = 1.0;
  buckets[2].min = buckets[2].max = 5.0;
  auto best = bestValue(s, buckets, "val/loss");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->value, 1.0);
  EXPECT_FALSE(best->higherIsBetter);
  s.best_step = 2;  // a maximized key: best_step is the step of the max
  best = bestValue(s, buckets, "val/whatever");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->value, 5.0);
  EXPECT_TRUE(best->higherIsBetter);
  s.best_step = -1;
  EXPECT_FALSE(bestValue(s, buckets, "val/loss"));
}

TEST(ParetoFront, LowerCostAndLowerLossDominate) {
  // (cost, loss): b is dominated by a; c is cheaper but worse: on the front.
  std::vector<double> x = {10, 20, 5}, y = {1.0, 1.5, 2.0};
  EXPECT_EQ(paretoFront(x, y, false, false), (std::vector<bool>{true, false, true}));
  // Higher tokens/s and higher accuracy are better: the first dominates both others.
  std::vector<double> tps = {100, 50, 80}, acc = {0.9, 0.8, 0.85};
  EXPECT_EQ(paretoFront(tps, acc, true, true), (std::vector<bool>{true, false, false}));
}
