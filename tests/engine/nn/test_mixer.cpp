// Softplus mixer: positive weights summing to 1, equal at init, gradient reaches p, uniform
// mode has no trainable p; the introspection matrix reports them per layer.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/types.h>

#include "nn/internal/mixer.h"
#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

TEST(Mixer, WeightsArePositiveSumToOneAndEqualAtInit) {
  nn::Mixer m(3, model::MixerMode::Learned);
  const at::Tensor w0 = m->weights();
  EXPECT_EQ(w0.scalar_type(), at::kFloat);
  EXPECT_EQ(m->p.scalar_type(), at::kFloat);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(w0[i].item<double>(), 1.0 / 3.0, 1e-7);
  {
    torch::NoGradGuard no_grad;
    m->p.copy_(at::tensor({-30.0f, 0.5f, 12.0f}));
  }
  const at::Tensor w = m->weights();
  EXPECT_GT(w.min().item<double>(), 0.0);
  EXPECT_NEAR(w.sum().item<double>(), 1.0, 1e-6);
  EXPECT_GT(w[2].item<double>(), w[1].item<double>());
  EXPECT_GT(w[1].item<double>(), w[0].item<double>());
}

TEST(Mixer, UniformHasNoTrainableParameter) {
  nn::Mixer m(2, model::MixerMode::Uniform);
  EXPECT_TRUE(m->parameters().empty());
  EXPECT_NEAR(m->weights()[0].item<double>(), 0.5, 1e-7);

  nn::PhaModel model(testing::tiny_config("pha-uniform"));
  for (const auto& p : model->named_parameters()) EXPECT_EQ(p.key().find("mixer"), std::string::npos) << p.key();
  const model::ModelIntrospection info = model->introspect();
  for (int l = 0; l < info.mixer_weights.rows; ++l) {
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(info.mixer_weights.at(l, b), 1.0 / 3.0, 1e-7);
  }
}

TEST(Mixer, GradientReachesP) {
  at::manual_seed(20);
  nn::PhaModel model(testing::tiny_config("pha"));
  const at::Tensor tokens = at::randint(0, 37, {2, 10}, at::kLong);
  const at::Tensor logits = model(tokens);
  at::cross_entropy_loss(logits.reshape({-1, 37}), at::randint(0, 37, {20}, at::kLong)).backward();
  int seen = 0;
  for (const auto& p : model->named_parameters()) {
    if (p.key().find("mixer.p") == std::string::npos) continue;
    ++seen;
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().max().item<double>(), 0.0) << p.key();
    EXPECT_EQ(p.value().scalar_type(), at::kFloat);
  }
  EXPECT_EQ(seen, 2);  // one per layer
}

TEST(Mixer, IntrospectionMatrixPerVariant) {
  nn::PhaModel no_attn(testing::tiny_config("pha-no-attn"));
  const auto a = no_attn->introspect().mixer_weights;
  ASSERT_EQ(a.rows, 2);
  ASSERT_EQ(a.cols, 3);
  EXPECT_NEAR(a.at(0, 0), 0.5, 1e-7);
  EXPECT_EQ(a.at(0, 1), 0.0f);  // removed branch: weight 0
  EXPECT_NEAR(a.at(1, 2), 0.5, 1e-7);

  nn::PhaModel seq(testing::tiny_config("sequential"));
  const auto s = seq->introspect().mixer_weights;
  for (int b = 0; b < 3; ++b) EXPECT_TRUE(std::isnan(s.at(0, b)));  // no mixer: NaN row

  nn::PhaModel mixed(testing::tiny_config("parallel,sequential"));
  const auto m = mixed->introspect().mixer_weights;
  EXPECT_NEAR(m.at(0, 1), 1.0 / 3.0, 1e-7);
  EXPECT_TRUE(std::isnan(m.at(1, 1)));
}

TEST(Introspection, BranchRmsAndParameterCounts) {
  at::manual_seed(21);
  nn::PhaModel model(testing::tiny_config("pha-no-ffn"));
  const model::ModelIntrospection before = model->introspect();
  EXPECT_TRUE(std::isnan(before.branch_rms.at(0, 0)));  // no forward yet
  model(at::randint(0, 37, {2, 8}, at::kLong));
  const model::ModelIntrospection info = model->introspect();
  for (int l = 0; l < 2; ++l) {
    EXPECT_GT(info.branch_rms.at(l, 0), 0.0f);
    EXPECT_GT(info.branch_rms.at(l, 1), 0.0f);
    EXPECT_TRUE(std::isnan(info.branch_rms.at(l, 2)));  // ffn absent
    EXPECT_EQ(info.layer_params[l].branch[2], 0);
  }
  // Per-branch counts add up to the module tree, and the attention count is its own formula.
  int64_t sum = info.embedding_params + info.head_params + info.final_norm_params;
  for (const auto& l : info.layer_params) {
    EXPECT_EQ(l.total, l.branch[0] + l.branch[1] + l.branch[2] + l.norms_and_mixer);
    sum += l.total;
  }
  EXPECT_EQ(sum, info.total_params);
  EXPECT_EQ(info.total_params, model->num_parameters());
  const int64_t d = 32, hd = 8, Hq = 4, G = 2;
  EXPECT_EQ(info.layer_params[0].branch[1], d * (Hq + 2 * G) * hd + Hq * hd * d + Hq);
  // norms: 2 RMSNorm gains + mixer p (2) + post LayerNorm (2d)
  EXPECT_EQ(info.layer_params[0].norms_and_mixer, 2 * d + 2 + 2 * d);
}

}  // namespace
}  // namespace pha::nn
