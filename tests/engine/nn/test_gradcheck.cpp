// Double-precision finite-difference check of the autograd gradients (LibTorch has no C++
// gradcheck): central differences on sampled entries of every parameter, and one directional
// derivative over all parameters at once, for tiny configs of the main block kinds.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/types.h>

#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

model::ModelConfig grad_config(const std::string& variant) {
  model::ModelConfig cfg = model::make_variant_config(variant, /*vocab=*/11, /*d=*/16, /*n_layers=*/2);
  cfg.attention.heads = 4;
  cfg.attention.kv_heads = 2;
  cfg.attention.head_dim = 4;
  cfg.gss.expanded = 24;
  cfg.gss.reduced = 8;
  cfg.gss.state = 8;
  cfg.ffn.d_ff = 32;
  return cfg;
}

class GradCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(GradCheck, FiniteDifferencesMatchAutograd) {
  at::manual_seed(60);
  nn::PhaModel model(grad_config(GetParam()));
  model->to(at::kDouble);
  {  // move the mixer off its symmetric init so every path carries a distinct weight
    torch::NoGradGuard no_grad;
    for (auto& p : model->named_parameters()) {
      if (p.key().find("mixer.p") != std::string::npos) p.value().normal_(0.0, 0.5);
    }
  }
  const at::Tensor tokens = at::randint(0, 11, {2, 7}, at::kLong);
  const at::Tensor probe = at::randn({2, 7, 11}, at::kDouble);  // loss = <logits, probe>
  auto loss = [&]() { return (model(tokens) * probe).sum(); };

  model->zero_grad();
  loss().backward();
  const double eps = 1e-6;
  int checked = 0;
  torch::NoGradGuard no_grad;
  for (auto& p : model->named_parameters()) {
    at::Tensor w = p.value();
    const at::Tensor grad = w.grad().defined() ? w.grad().clone() : at::zeros_like(w);
    at::Tensor flat = w.view({-1});
    const int64_t n = flat.numel();
    for (int64_t j : {int64_t{0}, n / 3, n / 2, n - 1}) {
      const double orig = flat[j].item<double>();
      flat[j].fill_(orig + eps);
      const double up = loss().item<double>();
      flat[j].fill_(orig - eps);
      const double down = loss().item<double>();
      flat[j].fill_(orig);
      const double numeric = (up - down) / (2 * eps);
      const double analytic = grad.view({-1})[j].item<double>();
      EXPECT_NEAR(analytic, numeric, 1e-6 + 1e-5 * std::abs(numeric)) << p.key() << "[" << j << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);

  // Directional derivative along one random direction over every parameter.
  std::vector<at::Tensor> dirs, grads;
  double analytic = 0.0;
  for (auto& w : model->parameters()) {
    dirs.push_back(at::randn_like(w));
    analytic += (dirs.back() * (w.grad().defined() ? w.grad() : at::zeros_like(w))).sum().item<double>();
  }
  auto shift = [&](double s) {
    size_t i = 0;
    for (auto& w : model->parameters()) w.add_(dirs[i++], s);
  };
  shift(eps);
  const double up = loss().item<double>();
  shift(-2 * eps);
  const double down = loss().item<double>();
  shift(eps);
  EXPECT_NEAR(analytic, (up - down) / (2 * eps), 1e-6 + 1e-5 * std::abs(analytic));
}

INSTANTIATE_TEST_SUITE_P(Model, GradCheck,
                         ::testing::Values("pha", "sequential", "pha-uniform", "gss,attn", "mamba", "pha-s6"),
                         [](const auto& info) { return testing::param_name(info.param); });

}  // namespace
}  // namespace pha::nn
