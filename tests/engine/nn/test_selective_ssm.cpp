// The selective SSM branch (S6, ssm "s6"): its forward against the formulas written out with
// the naive scan, its decoding against its forward, the three ways a model uses it (pure
// `mamba`, the serial `sequential-s6`, PHA's `pha-s6`), parameter roles, initialisation and
// counts, and the config keys (JSON round trip, errors naming the field).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "error_message.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "model/variants.h"
#include "nn/internal/deepnorm_init.h"
#include "nn/pha_model.h"
#include "nn/internal/selective_ssm_branch.h"
#include "selective_scan/selective_scan.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

model::ModelConfig s6_branch_config(int conv = 4) {
  model::ModelConfig c = testing::tiny_config("mamba", /*d=*/32, /*n_layers=*/2);
  c.selective.state = 8;
  c.selective.conv = conv;
  return c;
}

// The branch written out: in_proj, an explicit causal convolution over taps, SiLU, x_proj,
// softplus(dt_proj), the naive scan, D skip, gate, out_proj.
at::Tensor s6_by_formula(nn::SelectiveSsmBranchImpl& m, const at::Tensor& x) {
  const int64_t Di = m.inner(), K = m.conv_width(), T = x.size(1);
  const at::Tensor xz = at::matmul(x, m.in_proj->weight.t());  // (B, T, 2 Di)
  const at::Tensor xi = xz.narrow(2, 0, Di), z = xz.narrow(2, Di, Di);
  at::Tensor conv = m.conv1d->bias.expand_as(xi).clone();  // (B, T, Di)
  for (int64_t t = 0; t < T; ++t)
    for (int64_t j = 0; j < K; ++j) {
      const int64_t s = t - (K - 1) + j;
      if (s >= 0) conv.select(1, t).add_(xi.select(1, s) * m.conv1d->weight.select(2, j).squeeze(1));
    }
  const at::Tensor xs = conv * at::sigmoid(conv);
  const at::Tensor dbc = at::matmul(xs, m.x_proj->weight.t());
  const int64_t R = m.dt_proj->weight.size(1), N = m.state_size();
  const at::Tensor delta = at::log1p(at::exp(at::matmul(dbc.narrow(2, 0, R), m.dt_proj->weight.t()) + m.dt_proj->bias));
  const at::Tensor A = -at::exp(m.A_log);
  const at::Tensor y = pha::kernels::ref::selective_scan(xs, delta, A, dbc.narrow(2, R, N), dbc.narrow(2, R + N, N));
  return at::matmul((y + xs * m.D) * z * at::sigmoid(z), m.out_proj->weight.t());
}

TEST(SelectiveSsm, BranchEqualsItsFormulas) {
  torch::NoGradGuard no_grad;
  at::manual_seed(80);
  for (int conv : {1, 4}) {
    nn::SelectiveSsmBranch m(s6_branch_config(conv));
    m->to(at::kDouble);
    const at::Tensor x = at::randn({2, 13, 32}, at::kDouble);
    const at::Tensor y = m(x);
    EXPECT_EQ(y.sizes(), x.sizes());
    EXPECT_LE(testing::rel_err(y, s6_by_formula(*m, x)), 1e-12) << "conv " << conv;
  }
}

// Mixed precision: a bf16 input runs in_proj and out_proj in bf16 and the rest in fp32; the
// output (bf16) is within the branch tolerance of test_precision (2e-2) of the fp32 branch.
TEST(SelectiveSsm, Bf16InputStaysNearFp32) {
  torch::NoGradGuard no_grad;
  at::manual_seed(84);
  nn::SelectiveSsmBranch m(s6_branch_config());
  const at::Tensor x = at::randn({2, 40, 32});
  const at::Tensor y = m(x.to(at::kBFloat16));
  EXPECT_EQ(y.scalar_type(), at::kBFloat16);
  EXPECT_LE(testing::rel_err(y, m(x)), 2e-2);
  nn::S6State st;
  m->prefill(x.narrow(1, 0, 3).to(at::kBFloat16), st);
  EXPECT_EQ(st.h.scalar_type(), at::kFloat);  // the state stays in the parameters' dtype
  EXPECT_EQ(m->step(x.narrow(1, 3, 1).to(at::kBFloat16), st).scalar_type(), at::kBFloat16);
}

TEST(SelectiveSsm, ParameterShapesAndInit) {
  at::manual_seed(81);
  const model::ModelConfig c = s6_branch_config();
  nn::SelectiveSsmBranch m(c);
  const int64_t Di = 64, N = 8, R = 2;  // expand 2 x d 32; dt_rank ceil(32 / 16)
  EXPECT_EQ(m->in_proj->weight.sizes(), (std::vector<int64_t>{2 * Di, 32}));
  EXPECT_EQ(m->conv1d->weight.sizes(), (std::vector<int64_t>{Di, 1, 4}));
  EXPECT_EQ(m->x_proj->weight.sizes(), (std::vector<int64_t>{R + 2 * N, Di}));
  EXPECT_EQ(m->dt_proj->weight.sizes(), (std::vector<int64_t>{Di, R}));
  EXPECT_EQ(m->out_proj->weight.sizes(), (std::vector<int64_t>{32, Di}));
  EXPECT_FALSE(m->out_proj->bias.defined());
  EXPECT_TRUE(m->A_log.equal(at::log(at::arange(1, N + 1, at::kFloat)).expand({Di, N})));
  EXPECT_TRUE(m->D.equal(at::ones({Di})));
  const at::Tensor dt0 = at::softplus(m->dt_proj->bias);
  EXPECT_GE(dt0.min().item<double>(), c.selective.dt_min * (1 - 1e-5));
  EXPECT_LE(dt0.max().item<double>(), c.selective.dt_max * (1 + 1e-5));
  int64_t n = 0;
  for (const auto& p : m->parameters()) n += p.numel();
  EXPECT_EQ(n, model::selective_branch_params(c));
}

// Prefill P tokens then one step at a time, or every token from an empty state: the outputs of
// the full forward, fp64. P below conv - 1 checks the zero-padded window.
TEST(SelectiveSsm, DecodingEqualsForward) {
  torch::NoGradGuard no_grad;
  at::manual_seed(82);
  for (int conv : {1, 4}) {
    nn::SelectiveSsmBranch m(s6_branch_config(conv));
    m->to(at::kDouble);
    const at::Tensor x = at::randn({3, 17, 32}, at::kDouble);
    const at::Tensor full = m(x);
    for (int64_t P : {0, 2, 9}) {
      nn::S6State st;
      std::vector<at::Tensor> out;
      if (P > 0) out.push_back(m->prefill(x.narrow(1, 0, P), st));
      for (int64_t t = P; t < 17; ++t) out.push_back(m->step(x.narrow(1, t, 1), st));
      EXPECT_LE(testing::rel_err(at::cat(out, 1), full), 1e-10) << "conv " << conv << " prefill " << P;
      EXPECT_EQ(st.h.sizes(), (std::vector<int64_t>{3, 64, 8}));
      EXPECT_EQ(st.conv.sizes(), (std::vector<int64_t>{3, 64, conv - 1}));
    }
  }
}

// The three forms: forward, backward into every S6 parameter, analytic count = module count,
// the S6 parameters in the SSM slot of the introspection, decoding = forward.
TEST(SelectiveSsm, PureSerialAndParallelModelsTrainAndDecode) {
  for (const char* variant : {"mamba", "sequential-s6", "pha-s6", "gss,parallel"}) {
    SCOPED_TRACE(variant);
    at::manual_seed(83);
    model::ModelConfig c = testing::tiny_config(variant);
    c.ssm = "s6";
    nn::PhaModel model(c);
    EXPECT_EQ(model->num_parameters(), model::count_parameters(c).total);
    const at::Tensor tokens = at::randint(0, 37, {2, 12}, at::kLong);
    const at::Tensor loss = at::cross_entropy_loss(model(tokens).reshape({-1, 37}), tokens.reshape({-1}));
    loss.backward();
    int s6_params = 0;
    for (const auto& p : model->named_parameters()) {
      EXPECT_EQ(p.key().find(".gss."), std::string::npos) << p.key();
      if (p.key().find(".s6.") == std::string::npos) continue;
      ++s6_params;
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_GT(p.value().grad().abs().max().item<double>(), 0.0) << p.key();
    }
    EXPECT_GT(s6_params, 0);
    const model::ModelIntrospection info = model->introspect();
    const model::ParamCount pc = model::count_parameters(c);
    for (size_t l = 0; l < info.layer_params.size(); ++l)
      EXPECT_EQ(info.layer_params[l].branch[0], pc.layers[l].branches.gss) << "layer " << l;

    torch::NoGradGuard no_grad;
    model->to(at::kDouble);
    const at::Tensor full = model(tokens);
    nn::DecodeState st = model->new_state(2);
    std::vector<at::Tensor> out = {model->prefill(tokens.narrow(1, 0, 5), st)};
    for (int64_t t = 5; t < 12; ++t) out.push_back(model->step(tokens.select(1, t), st).unsqueeze(1));
    EXPECT_LE(testing::rel_err(at::cat(out, 1), full), 1e-10);
    EXPECT_EQ(st.gss_state_bytes(), model::decode_memory(c, 2, 12, 8).gss_state_bytes);
  }
}

TEST(SelectiveSsm, ParameterRolesAndInitPlan) {
  nn::PhaModel model(testing::tiny_config("pha-s6"));
  for (const nn::ParamInfo& p : model->parameter_info()) {
    if (p.name.find(".s6.") == std::string::npos) continue;
    const bool dynamics = p.name.find("A_log") != std::string::npos || p.name.substr(p.name.size() - 2) == ".D";
    const nn::ParamRole want = dynamics ? nn::ParamRole::DssKernel
                           : p.name.find(".bias") != std::string::npos ? nn::ParamRole::Bias
                                                                        : nn::ParamRole::Matrix;
    EXPECT_EQ(p.role, want) << p.name;
  }
  std::vector<std::string> beta = nn::deepnorm_beta_weights(*model);
  for (const char* name : {"layers.0.sub.0.s6.in_x", "layers.0.sub.0.s6.in_z", "layers.0.sub.0.s6.w_o"})
    EXPECT_NE(std::find(beta.begin(), beta.end(), name), beta.end()) << name;
  EXPECT_EQ(std::find(beta.begin(), beta.end(), "layers.0.sub.0.s6.x_proj"), beta.end());
  // dt_proj.bias survives the init's "biases 0" rule
  const at::Tensor b = model->named_parameters()["layers.0.sub.0.s6.dt_proj.bias"];
  EXPECT_LT(b.max().item<double>(), 0.0);  // softplus^-1 of at most 0.1
}

TEST(SelectiveSsm, ConfigRoundTripAndPresets) {
  for (const char* name : {"mamba-tiny", "pha-s6-tiny", "sequential-s6-tiny", "mamba-small"}) {
    const model::ModelConfig c = model::preset(name);
    EXPECT_TRUE(c.selective_ssm()) << name;
    const nlohmann::json j = model::to_json(c);
    EXPECT_EQ(j.at("ssm"), "s6");
    EXPECT_EQ(model::to_json(model::model_config_from_json(j)).dump(), j.dump()) << name;
    EXPECT_NE(model::preset_description(name).find(", S6 Di "), std::string::npos) << model::preset_description(name);
  }
  model::ModelConfig c = model::preset("pha-tiny");
  EXPECT_FALSE(model::to_json(c).contains("ssm"));  // GSS configs are written as before the key existed
  EXPECT_FALSE(model::to_json(c).contains("selective"));
  c.ssm = "s6";
  c.selective = {32, 1, 2, 5, 1e-2, 0.5};
  const model::ModelConfig back = model::model_config_from_json(model::to_json(c));
  EXPECT_EQ(back.ssm, "s6");
  EXPECT_EQ(back.selective.state, 32);
  EXPECT_EQ(back.selective.expand, 1);
  EXPECT_EQ(back.selective.conv, 2);
  EXPECT_EQ(back.selective.dt_rank, 5);
  EXPECT_EQ(back.selective.dt_min, 1e-2);
  EXPECT_EQ(back.selective.dt_max, 0.5);
  // the variant sets the key; a file's own key overrides it only where it agrees
  EXPECT_EQ(model::model_config_from_json({{"variant", "mamba"}, {"n_layers", 2}}).ssm, "s6");
  EXPECT_EQ(model::model_config_from_json({{"variant", "pha"}, {"ssm", "s6"}}).ssm, "s6");
}

TEST(SelectiveSsm, BadKeysNameTheField) {
  using pha::test::error_message;
  auto read = [](nlohmann::json j) { return [j] { model::model_config_from_json(j); }; };
  EXPECT_EQ(error_message(read({{"ssm", "s6"}, {"selective", {{"state", 0}}}})),
            "model.selective.state: 0 is out of range; allowed: 1 to 256");
  EXPECT_EQ(error_message(read({{"ssm", "s4"}})), "model.ssm: \"s4\" is not allowed; allowed: \"gss\", \"s6\"");
  EXPECT_EQ(error_message(read({{"variant", "mamba"}, {"ssm", "gss"}})),
            "model.ssm: \"gss\" contradicts model.variant = \"mamba\"; allowed: \"s6\"");
  EXPECT_NE(error_message(read({{"selective", {{"dt_min", 0.5}, {"dt_max", 0.1}}}, {"ssm", "s6"}})).find("model.selective.dt_min"),
            std::string::npos);
  EXPECT_NE(error_message(read({{"selective", {{"stat", 3}}}})).find("model.selective"), std::string::npos);
  model::ModelConfig c = model::preset("mamba-tiny");  // a config built in code: the same message
  c.selective.expand = 0;
  EXPECT_EQ(error_message([&] { model::validate_model_config(c); }),
            "model.selective.expand: 0 is out of range; allowed: 1 to 16");
}

}  // namespace
}  // namespace pha::nn
