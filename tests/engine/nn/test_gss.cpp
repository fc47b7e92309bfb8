// GSS branch: recurrent generation equals the FFT forward; the prefill state continues it.
#include <gtest/gtest.h>

#include <torch/types.h>

#include "core/error.h"
#include "nn/internal/gss_branch.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

using testing::rel_err;

model::ModelConfig gss_config() {
  model::ModelConfig cfg = testing::tiny_config("pha", /*d=*/16);
  cfg.gss.expanded = 32;
  cfg.gss.reduced = 8;
  cfg.gss.state = 16;
  return cfg;
}

// Runs step() over every position of x (B, T, E) from an empty state.
at::Tensor run_recurrent(nn::GssBranch& gss, const at::Tensor& x) {
  nn::GssState state;
  std::vector<at::Tensor> ys;
  for (int64_t t = 0; t < x.size(1); ++t) ys.push_back(gss->step(x.narrow(1, t, 1), state));
  return at::cat(ys, 1);  // (B, T, E)
}

TEST(GssBranch, RecurrentEqualsConvolutionFp32AtT1024) {
  torch::NoGradGuard no_grad;
  at::manual_seed(1);
  nn::GssBranch gss(gss_config());
  const at::Tensor x = at::randn({2, 1024, 16});
  const at::Tensor full = gss(x);
  const at::Tensor rec = run_recurrent(gss, x);
  EXPECT_LE(rel_err(rec, full), 1e-4);
}

TEST(GssBranch, RecurrentEqualsConvolutionFp64) {
  torch::NoGradGuard no_grad;
  at::manual_seed(2);
  nn::GssBranch gss(gss_config());
  gss->to(at::kDouble);
  const at::Tensor x = at::randn({2, 300, 16}, at::kDouble);
  EXPECT_LE(rel_err(run_recurrent(gss, x), gss(x)), 1e-10);
}

TEST(GssBranch, PrefillStateContinuesTheSequence) {
  torch::NoGradGuard no_grad;
  at::manual_seed(3);
  nn::GssBranch gss(gss_config());
  gss->to(at::kDouble);
  const at::Tensor x = at::randn({3, 40, 16}, at::kDouble);
  const at::Tensor full = gss(x);
  nn::GssState state;
  const at::Tensor head = gss->prefill(x.narrow(1, 0, 25), state);
  EXPECT_LE(rel_err(head, full.narrow(1, 0, 25)), 1e-12);
  std::vector<at::Tensor> tail;
  for (int64_t t = 25; t < 40; ++t) tail.push_back(gss->step(x.narrow(1, t, 1), state));
  EXPECT_LE(rel_err(at::cat(tail, 1), full.narrow(1, 25, 15)), 1e-10);
}

TEST(GssBranch, WithoutInnerNormStillMatches) {
  torch::NoGradGuard no_grad;
  at::manual_seed(4);
  model::ModelConfig cfg = gss_config();
  cfg.gss.inner_norm = false;
  nn::GssBranch gss(cfg);
  EXPECT_FALSE(gss->inner_norm);
  gss->to(at::kDouble);
  const at::Tensor x = at::randn({1, 64, 16}, at::kDouble);
  EXPECT_LE(rel_err(run_recurrent(gss, x), gss(x)), 1e-10);
}

TEST(GssBranch, ShapesAndParameterNames) {
  nn::GssBranch gss(gss_config());
  const at::Tensor y = gss(at::randn({2, 7, 16}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 7, 16}));
  std::vector<std::string> names;
  for (const auto& p : gss->named_parameters()) names.push_back(p.key());
  const std::vector<std::string> expected = {"lre", "lim", "cre", "cim", "d",
                                             "w_uv.weight", "w_g.weight", "w_o.weight", "w_o.bias",
                                             "inner_norm.weight", "inner_norm.bias"};
  for (const auto& n : expected) EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(names.size(), expected.size());
  EXPECT_EQ(gss->w_uv->weight.sizes(), (std::vector<int64_t>{32 + 8, 16}));
  EXPECT_EQ(gss->cre.sizes(), (std::vector<int64_t>{8, 16}));
}

TEST(GssBranch, RejectsBadInputAndConfig) {
  nn::GssBranch gss(gss_config());
  EXPECT_THROW(gss(at::randn({2, 7, 15})), c10::Error);
  model::ModelConfig bad = gss_config();
  bad.gss.state = 0;
  try {
    nn::GssBranch g(bad);
    FAIL() << "no error for gss.state = 0";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where(), "model.gss.state");
  }
}

}  // namespace
}  // namespace pha::nn
