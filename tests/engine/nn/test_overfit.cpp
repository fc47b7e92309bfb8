// Every variant memorises one fixed small batch: the loss falls below 5% of its start within a
// bounded number of AdamW steps (tiny widths, short sequences: seconds on 2 cores).
#include <gtest/gtest.h>

#include <torch/optim/adamw.h>
#include <torch/types.h>

#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

class Overfit : public ::testing::TestWithParam<std::string> {};

TEST_P(Overfit, LossFallsBelowFivePercent) {
  at::manual_seed(70);
  nn::PhaModel model(testing::tiny_config(GetParam(), /*d=*/32, /*n_layers=*/2, /*vocab=*/37));
  const at::Tensor data = at::randint(0, 37, {4, 17}, at::kLong);
  const at::Tensor inputs = data.narrow(1, 0, 16), targets = data.narrow(1, 1, 16).reshape({-1});
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-2).weight_decay(0.0));
  auto step = [&]() {
    opt.zero_grad();
    const at::Tensor loss = at::cross_entropy_loss(model(inputs).reshape({-1, 37}), targets);
    loss.backward();
    opt.step();
    return loss.item<double>();
  };
  const double start = step();
  EXPECT_GT(start, 2.5);  // about ln 37 at init
  double loss = start;
  int steps = 1;
  for (; steps < 400 && loss >= 0.05 * start; ++steps) loss = step();
  EXPECT_LT(loss, 0.05 * start) << "after " << steps << " steps";
  RecordProperty("steps", steps);
}

INSTANTIATE_TEST_SUITE_P(Model, Overfit, ::testing::ValuesIn(testing::all_variants()),
                         [](const auto& info) { return testing::param_name(info.param); });

}  // namespace
}  // namespace pha::nn
