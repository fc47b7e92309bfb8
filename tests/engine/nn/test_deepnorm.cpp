// DeepNorm: alpha = (2L)^(1/4) in every residual, beta = (8L)^(-1/4) on exactly the documented
// weights (FFN, attention V and O, GSS W_u W_v W_g W_o), gain 1 on Q and K.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include <torch/types.h>

#include "nn/internal/deepnorm_init.h"
#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

// The documented rule, written independently of the model code: weight role -> gets beta.
const std::map<std::string, bool>& documented_beta() {
  static const std::map<std::string, bool> rule = {
      {"gss.w_u", true},       {"gss.w_v", true},       {"gss.w_g", true},        {"gss.w_o", true},
      {"attn.w_q", false},     {"attn.w_k", false},     {"attn.w_v", true},       {"attn.w_o", true},
      {"ffn.main_up", true},   {"ffn.main_down", true}, {"ffn.aux_up", true},     {"ffn.aux_down", true}};
  return rule;
}

std::string role(const std::string& logical) {  // "layers.0.sub.1.attn.w_v" -> "attn.w_v"
  const size_t last = logical.rfind('.');
  const size_t prev = logical.rfind('.', last - 1);
  return logical.substr(prev + 1);
}

TEST(DeepNorm, AlphaAndBetaValues) {
  model::ModelConfig cfg = testing::tiny_config("pha", 32, 6);
  EXPECT_NEAR(cfg.deepnorm_alpha(), std::pow(12.0, 0.25), 1e-12);
  EXPECT_NEAR(cfg.deepnorm_beta(), std::pow(48.0, -0.25), 1e-12);
  cfg.deepnorm = false;
  EXPECT_EQ(cfg.deepnorm_alpha(), 1.0);
  EXPECT_EQ(cfg.deepnorm_beta(), 1.0);
}

TEST(DeepNorm, ResidualUsesAlpha) {
  torch::NoGradGuard no_grad;
  at::manual_seed(30);
  const model::ModelConfig cfg = testing::tiny_config("transformer", 32, 3);
  nn::PhaModel model(cfg);
  model->to(at::kDouble);
  const nn::Sublayer& ffn_sub = model->blocks()[1]->sublayers()[1];
  ASSERT_TRUE(ffn_sub->ffn);
  const at::Tensor x = at::randn({2, 5, 32}, at::kDouble);
  const double alpha = std::pow(6.0, 0.25);
  // A single branch enters through its own RMSNorm (branch_norm "all", docs/model.md).
  const at::Tensor y = ffn_sub->ffn.ptr()->forward(x);
  const at::Tensor f = y / (y.pow(2).mean(-1, true) + cfg.norm_eps).sqrt() * ffn_sub->norms[2]->weight;
  const at::Tensor expected =
      at::layer_norm(alpha * x + f, {32}, ffn_sub->post_norm->weight, ffn_sub->post_norm->bias, 1e-5);
  EXPECT_LE(testing::rel_err(ffn_sub.ptr()->forward(x), expected), 1e-12);
  // branch_norm "mixed" (runs saved before the rule): the raw branch output.
  model::ModelConfig old_cfg = cfg;
  old_cfg.branch_norm = "mixed";
  nn::PhaModel old_model(old_cfg);
  old_model->to(at::kDouble);
  const nn::Sublayer& old_sub = old_model->blocks()[1]->sublayers()[1];
  const at::Tensor old_expected = at::layer_norm(alpha * x + old_sub->ffn.ptr()->forward(x), {32},
                                                 old_sub->post_norm->weight, old_sub->post_norm->bias, 1e-5);
  EXPECT_LE(testing::rel_err(old_sub.ptr()->forward(x), old_expected), 1e-12);
}

TEST(DeepNorm, BetaOnExactlyTheDocumentedWeights) {
  at::manual_seed(31);
  model::ModelConfig cfg = testing::tiny_config("pha", 64, 4);
  cfg.gss.expanded = 256;
  cfg.gss.reduced = 128;
  cfg.ffn.d_ff = 256;
  nn::PhaModel model(cfg);
  const double beta = std::pow(32.0, -0.25);
  const auto plan = nn::deepnorm_init_plan(*model);
  std::set<std::string> roles_seen;
  for (const nn::InitEntry& e : plan) {
    const std::string r = role(e.name);
    ASSERT_TRUE(documented_beta().count(r)) << "undocumented weight " << e.name;
    roles_seen.insert(r);
    EXPECT_EQ(e.deepnorm_beta, documented_beta().at(r)) << e.name;
  }
  EXPECT_EQ(roles_seen.size(), documented_beta().size());  // every documented role exists once per layer
  const auto beta_names = nn::deepnorm_beta_weights(*model);
  EXPECT_EQ(beta_names.size(), 4u * (4 + 2 + 4));  // per layer: 4 GSS, attn V and O, 4 FFN

  // Measured standard deviations match Xavier-normal with the documented gain.
  const auto params = model->named_parameters();
  for (const nn::InitEntry& e : plan) {
    const at::Tensor w = params[e.param].narrow(0, e.row_begin, e.row_end - e.row_begin)
                             .narrow(1, e.col_begin, e.col_end - e.col_begin);
    const double gain = documented_beta().at(role(e.name)) ? beta : 1.0;
    const double expected = gain * std::sqrt(2.0 / static_cast<double>(w.size(0) + w.size(1)));
    const double measured = w.std().item<double>();
    EXPECT_NEAR(measured / expected, 1.0, 6.0 / std::sqrt(static_cast<double>(w.numel()))) << e.name;
  }
  // Every Linear weight of the branches is covered by the plan (nothing left at torch's default).
  std::set<std::string> planned;
  for (const nn::InitEntry& e : plan) planned.insert(e.param);
  for (const auto& p : params) {
    const bool branch_matrix = p.value().dim() == 2 && p.key().rfind("layers.", 0) == 0 &&
                               p.key().find(".weight") != std::string::npos;
    if (branch_matrix) { EXPECT_TRUE(planned.count(p.key())) << p.key(); }
  }
}

TEST(DeepNorm, OffMeansGainOne) {
  model::ModelConfig cfg = testing::tiny_config("transformer", 32, 2);
  cfg.deepnorm = false;
  nn::PhaModel model(cfg);
  for (const nn::InitEntry& e : nn::deepnorm_init_plan(*model)) EXPECT_EQ(e.gain, 1.0) << e.name;
}

}  // namespace
}  // namespace pha::nn
