// The model builder: every variant builds from cfg.layers, is causal, has the documented
// parameter names and layer structure; bad configs fail with core::Error naming the field.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <torch/types.h>

#include "core/error.h"
#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

class EveryVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryVariant, IsCausal) {
  torch::NoGradGuard no_grad;
  at::manual_seed(40);
  nn::PhaModel model(testing::tiny_config(GetParam()));
  model->to(at::kDouble);
  const int64_t T = 16, t = 6;
  const at::Tensor a = at::randint(0, 37, {2, T}, at::kLong);
  at::Tensor b = a.clone();
  b.narrow(1, t + 1, T - t - 1).copy_(at::randint(0, 37, {2, T - t - 1}, at::kLong));
  b.narrow(1, t + 1, 1).copy_((a.narrow(1, t + 1, 1) + 1) % 37);  // surely different at t + 1
  const at::Tensor la = model(a), lb = model(b);
  EXPECT_EQ(la.sizes(), (std::vector<int64_t>{2, T, 37}));
  EXPECT_LE(testing::max_abs(la.narrow(1, 0, t + 1) - lb.narrow(1, 0, t + 1)), 1e-10);
  EXPECT_GT(testing::max_abs(la.narrow(1, t + 1, 1) - lb.narrow(1, t + 1, 1)), 1e-6);  // the test can see changes
}

INSTANTIATE_TEST_SUITE_P(Model, EveryVariant, ::testing::ValuesIn(testing::all_variants()),
                         [](const auto& info) { return testing::param_name(info.param); });

TEST(Model, StructureFollowsTheLayerList) {
  nn::PhaModel model(testing::tiny_config("gss,gss,attn"));
  ASSERT_EQ(model->blocks().size(), 3u);
  EXPECT_EQ(model->blocks()[0]->kind(), model::BlockKind::GssOnly);
  EXPECT_EQ(model->blocks()[2]->kind(), model::BlockKind::Transformer);
  const auto& subs = model->blocks()[2]->sublayers();
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_TRUE(subs[0]->attn && !subs[0]->gss && !subs[0]->ffn);
  EXPECT_TRUE(subs[1]->ffn && !subs[1]->mixed());
}

TEST(Model, ParameterNames) {
  nn::PhaModel model(testing::tiny_config("pha"));
  std::set<std::string> names;
  for (const auto& p : model->named_parameters()) names.insert(p.key());
  for (const char* n : {"embed.weight", "final_norm.weight", "final_norm.bias",
                        "layers.0.sub.0.gss.w_uv.weight", "layers.0.sub.0.gss.lre",
                        "layers.0.sub.0.attn.w_qkv.weight", "layers.0.sub.0.attn.log_scale",
                        "layers.1.sub.0.ffn.up.weight", "layers.1.sub.0.ffn.down.bias",
                        "layers.1.sub.0.norm_gss.weight", "layers.1.sub.0.norm_ffn.weight",
                        "layers.1.sub.0.mixer.p", "layers.1.sub.0.post_norm.weight"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
  EXPECT_FALSE(names.count("head.weight"));  // tied
  // Each parameter the optimizer groups by role must exist (a renamed one fails here, not silently).
  std::map<std::string, nn::ParamInfo> infos;
  for (const auto& info : model->parameter_info()) infos.emplace(info.name, info);
  for (const char* n : {"layers.0.sub.0.gss.cre", "layers.0.sub.0.mixer.p", "layers.0.sub.0.attn.w_qkv.weight",
                        "layers.0.sub.0.norm_attn.weight"})
    ASSERT_TRUE(infos.count(n)) << n << " is not a parameter of the model";
  EXPECT_EQ(infos.at("layers.0.sub.0.gss.cre").role, nn::ParamRole::DssKernel);
  EXPECT_FALSE(infos.at("layers.0.sub.0.mixer.p").weight_decay);
  EXPECT_TRUE(infos.at("layers.0.sub.0.attn.w_qkv.weight").weight_decay);
  EXPECT_EQ(infos.at("layers.0.sub.0.norm_attn.weight").role, nn::ParamRole::Norm);
  model::ModelConfig untied = testing::tiny_config("transformer");
  untied.tie_embeddings = false;
  nn::PhaModel m2(untied);
  EXPECT_TRUE(m2->head);
  EXPECT_EQ(m2(at::zeros({1, 3}, at::kLong)).size(2), 37);
}

TEST(Model, TiedHeadUsesTheEmbedding) {
  torch::NoGradGuard no_grad;
  nn::PhaModel model(testing::tiny_config("transformer"));
  const at::Tensor tokens = at::randint(0, 37, {1, 5}, at::kLong);
  const at::Tensor h = model->hidden(tokens);
  EXPECT_LE(testing::rel_err(model(tokens), at::matmul(h, model->embed->weight.t())), 1e-6);
}

TEST(Model, ErrorsNameTheField) {
  model::ModelConfig cfg = testing::tiny_config("pha");
  cfg.layers.pop_back();
  try {
    nn::PhaModel m(cfg);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where(), "model.layers");
  }
  try {
    model::expand_variant("pha-no-everything", 2);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where(), "model.variant");
    EXPECT_NE(std::string(e.what()).find("transformer"), std::string::npos);  // lists what is allowed
  }
  EXPECT_THROW(model::expand_pattern({"gss", "mamba"}), core::Error);
  nn::PhaModel ok(testing::tiny_config("pha"));
  EXPECT_THROW(ok(at::zeros({3}, at::kLong)), c10::Error);            // needs (B, T)
  EXPECT_THROW(ok(at::zeros({1, 3}, at::kFloat)), c10::Error);        // needs integer tokens
}

TEST(Variants, Expansion) {
  const auto seq = model::expand_variant("sequential", 3);
  ASSERT_EQ(seq.size(), 3u);
  ASSERT_EQ(seq[1].sublayers.size(), 3u);
  EXPECT_EQ(seq[1].sublayers[1].branches, std::vector<model::Branch>{model::Branch::Attention});
  const auto no_gss = model::expand_variant("pha-no-gss", 1);
  EXPECT_EQ(no_gss[0].sublayers[0].branches, (std::vector<model::Branch>{model::Branch::Attention, model::Branch::Ffn}));
  const model::ModelConfig u = model::make_variant_config("pha-uniform", 50, 64, 2);
  EXPECT_EQ(u.mixer, model::MixerMode::Uniform);
  const model::ModelConfig p = model::make_variant_config("gss,attn,parallel", 50, 64, 1);
  EXPECT_EQ(p.variant, "pattern");
  EXPECT_EQ(p.n_layers, 3);
  EXPECT_EQ(p.layers[2].kind, model::BlockKind::Parallel);
}

}  // namespace
}  // namespace pha::nn
