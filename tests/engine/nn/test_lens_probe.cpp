// The hybrid lens's model hooks (nn/lens_probe.h, docs/lens.md): knocking out a branch whose
// mixer weight is 0 changes nothing; a knock-out of a weighted branch does change the loss; the
// probe's contributions are the weighted terms; the kernel spectrum is the impulse response of
// the branch's own DSS convolution; an attention map is a causal distribution per query and
// the branch has one only where it exists.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/types.h>

#include "core/error.h"
#include "gss_conv/gss_conv.h"
#include "nn/lens_probe.h"
#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

struct LensModel {
  nn::PhaModel model;
  at::Tensor tokens, targets;
  explicit LensModel(const std::string& variant) : model(testing::tiny_config(variant)) {
    tokens = at::randint(0, 37, {2, 24}, at::kLong);
    targets = at::randint(0, 37, {2, 24}, at::kLong);
    targets.index_put_({0, 0}, -100);  // one position not counted
  }
  model::LensPassResult pass(const model::LensPassRequest& r) { return nn::lens_pass(*model, tokens, targets, r); }
};

double mean_nll(const model::LensPassResult& r) {
  double s = 0;
  int n = 0;
  for (float v : r.nll)
    if (!std::isnan(v)) s += v, ++n;
  return s / n;
}

TEST(LensProbe, PerTokenLossesAreTheCrossEntropyAndSkipUncountedTargets) {
  LensModel m("pha");
  const model::LensPassResult r = m.pass({});
  ASSERT_EQ(r.nll.size(), 48u);
  EXPECT_TRUE(std::isnan(r.nll[0]));
  torch::NoGradGuard g;
  m.model->eval();
  const at::Tensor logits = m.model->forward(m.tokens);
  const double ce = at::cross_entropy_loss(logits.reshape({-1, 37}), m.targets.reshape({-1}), {}, at::Reduction::Mean, -100)
                        .item<double>();
  EXPECT_NEAR(mean_nll(r), ce, 1e-5 * ce);
}

TEST(LensProbe, KnockingOutABranchWithMixerWeightZeroChangesNothing) {
  LensModel m("pha");
  {
    torch::NoGradGuard g;
    // softplus(-1e4) is exactly 0 in fp32: layer 0's attention weight is 0.
    auto& sub = m.model->blocks()[0]->sublayers()[0];
    sub.ptr()->mixer->p.index_put_({1}, -1e4);
    ASSERT_EQ(sub->mixer_weights_canonical()[1].item<float>(), 0.0f);
  }
  const model::LensPassResult base = m.pass({});
  model::LensPassRequest ko;
  ko.knockouts = {{0, 1}};
  const model::LensPassResult r = m.pass(ko);
  for (size_t i = 1; i < r.nll.size(); ++i) ASSERT_EQ(r.nll[i], base.nll[i]) << "position " << i;
  // A branch with weight does matter (the test can fail).
  model::LensPassRequest ko_gss;
  ko_gss.knockouts = {{0, 0}};
  EXPECT_GT(std::fabs(mean_nll(m.pass(ko_gss)) - mean_nll(base)), 1e-6);
}

TEST(LensProbe, ContributionsAreTheWeightedNormedTermsAndAKnockedOutBranchContributesZero) {
  LensModel m("pha");
  model::LensPassRequest probe;
  probe.probe = true;
  const model::LensPassResult r = m.pass(probe);
  ASSERT_EQ(r.contribution.size(), 2u);
  const auto& sub = m.model->blocks()[1]->sublayers()[0];
  const at::Tensor w = sub->mixer_weights_canonical();
  for (int b = 0; b < 3; ++b) {
    ASSERT_EQ(r.contribution[1][b].size(), 48u);
    // gains 1 at init: |w_b * y / rms(y)| over d is w_b * sqrt(d) * sqrt(ms / (ms + eps)) ~ w_b * sqrt(d)
    EXPECT_NEAR(r.contribution[1][b][5], w[b].item<float>() * std::sqrt(32.0f), 1e-3) << "branch " << b;
    EXPECT_NEAR(r.normed_ms[1][b][5], 1.0f, 1e-3) << "branch " << b;
  }
  probe.knockouts = {{1, 2}};
  const model::LensPassResult k = m.pass(probe);
  for (float v : k.contribution[1][2]) ASSERT_EQ(v, 0.0f);
  for (float v : k.contribution[0][2]) ASSERT_GT(v, 0.0f) << "only layer 1's FFN is removed";
}

TEST(LensProbe, KernelSpectrumIsTheImpulseResponseOfTheBranchConvolution) {
  LensModel m("pha");
  const int64_t T = 40;
  const auto responses = nn::gss_impulse_responses(*m.model, T);
  ASSERT_EQ(responses.size(), 2u);
  for (size_t l = 0; l < 2; ++l) {
    const nn::GssBranchImpl& g = *m.model->blocks()[l]->sublayers()[0]->gss;
    const int64_t H = g.d.size(0);
    ASSERT_EQ(responses[l].rows, H);
    ASSERT_EQ(responses[l].cols, T);
    torch::NoGradGuard ng;
    at::Tensor z = at::zeros({1, T, H});
    z.select(1, 0).fill_(1.0);  // an impulse at t = 0 in every channel
    const at::Tensor y = pha::kernels::gss_causal_conv(z, g.kernel(T), g.d)[0];  // (T, H)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t)
        ASSERT_NEAR(responses[l].at(static_cast<int>(h), static_cast<int>(t)), y[t][h].item<float>(), 1e-5)
            << "layer " << l << " channel " << h << " lag " << t;
  }
  EXPECT_EQ(nn::gss_impulse_responses(*nn::PhaModel(testing::tiny_config("transformer")), T)[0].rows, 0)
      << "a layer without GSS has no response";
}

TEST(LensProbe, AttentionMapIsCausalAndSumsToOneAndIsRefusedWhereThereIsNoAttention) {
  LensModel m("pha");
  model::LensPassRequest r;
  r.attention_layer = 1;
  r.attention_head = 3;
  const model::LensPassResult out = m.pass(r);
  ASSERT_EQ(out.attention.size(), 2u * 24 * 24);
  for (int q = 0; q < 24; ++q) {
    double sum = 0;
    for (int k = 0; k < 24; ++k) {
      const float v = out.attention[static_cast<size_t>(q) * 24 + k];
      if (k > q) {
        ASSERT_EQ(v, 0.0f);
      }
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  r.attention_head = 4;
  EXPECT_THROW(m.pass(r), core::Error) << "4 query heads: 0-3";
  LensModel gss("gss-only");
  model::LensPassRequest a;
  a.attention_layer = 0;
  try {
    gss.pass(a);
    FAIL() << "a GSS-only layer has no attention map";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no attention branch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pha::nn
