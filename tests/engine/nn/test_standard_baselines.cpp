// The standard baselines built by the one builder (variants transformerpp and gpt2,
// docs/model.md "Standard baselines"): their forward pass against a hand-written composition of
// the textbook formulas on small cases (fp64), their settings, GPT-2 initialisation, learned
// positions' limit, and the single-branch branch norm of post-norm models.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/error.h"
#include "nn/internal/deepnorm_init.h"
#include "model/flops.h"
#include "nn/pha_model.h"
#include "model/presets.h"
#include "model/variants.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

using testing::rel_err;

// Textbook pieces, written from the papers' formulas rather than from the builder's code.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& g, double eps) {
  return x / (x.pow(2).mean(-1, true) + eps).sqrt() * g;
}
at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, double eps) {
  const at::Tensor mu = x.mean(-1, true);
  const at::Tensor var = (x - mu).pow(2).mean(-1, true);
  return (x - mu) / (var + eps).sqrt() * w + b;
}
// RoPE with half-split pairs: channel i pairs with i + hd/2 and turns by m * base^(-2i/hd).
at::Tensor rope(const at::Tensor& x, double base) {  // (T, H, hd)
  const int64_t T = x.size(0), hd = x.size(2), half = hd / 2;
  at::Tensor out = x.clone();
  for (int64_t m = 0; m < T; ++m) {
    for (int64_t i = 0; i < half; ++i) {
      const double a = static_cast<double>(m) * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(hd));
      const at::Tensor x1 = x.select(0, m).select(1, i), x2 = x.select(0, m).select(1, i + half);
      out.select(0, m).select(1, i).copy_(x1 * std::cos(a) - x2 * std::sin(a));
      out.select(0, m).select(1, i + half).copy_(x1 * std::sin(a) + x2 * std::cos(a));
    }
  }
  return out;
}
// Causal softmax attention of one sequence, q (T, Hq, hd), k and v (T, G, hd).
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const int64_t T = q.size(0), Hq = q.size(1), G = k.size(1), hd = q.size(2);
  at::Tensor out = at::zeros_like(q);
  for (int64_t h = 0; h < Hq; ++h) {
    const int64_t g = h / (Hq / G);
    at::Tensor s = at::matmul(q.select(1, h), k.select(1, g).t()) / std::sqrt(static_cast<double>(hd));
    s = s.masked_fill(at::ones({T, T}, at::kBool).triu(1), -INFINITY);
    out.select(1, h).copy_(at::matmul(at::softmax(s, -1), v.select(1, g)));
  }
  return out;
}
at::Tensor param(nn::PhaModelImpl& m, const std::string& name) {
  const auto params = m.named_parameters();
  const at::Tensor* p = params.find(name);
  if (p == nullptr) throw std::runtime_error("no parameter " + name);
  return *p;
}
at::Tensor lin(const at::Tensor& x, const at::Tensor& w) { return at::matmul(x, w.t()); }

model::ModelConfig small(const std::string& variant) {
  model::ModelConfig c = model::make_variant_config(variant, 11, 8, 2);
  c.attention.heads = 2;
  c.attention.kv_heads = variant == "gpt2" ? 2 : 1;  // GQA exercised on the Llama side
  c.attention.head_dim = 4;
  c.ffn.d_ff = 12;
  c.context = 16;
  model::validate_model_config(c);
  return c;
}

// Random (not initial) weights, so that norms' gains and biases take part.
void randomize(nn::PhaModelImpl& m) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.parameters()) p.normal_(0.0, 0.5);
}

TEST(StandardBaselines, VariantSettingsAreThoseOfTheirPapers) {
  const model::ModelConfig pp = model::preset("transformerpp-tiny");
  EXPECT_EQ(pp.norm_placement, "pre");
  EXPECT_EQ(pp.norm, "rmsnorm");
  EXPECT_EQ(pp.positions, "rope");
  EXPECT_EQ(pp.attention.kind, "softmax");
  EXPECT_EQ(pp.ffn.kind, "swiglu");
  EXPECT_FALSE(pp.attention.bias);
  EXPECT_FALSE(pp.ffn.bias);
  EXPECT_EQ(pp.d_aux(), 0);
  EXPECT_TRUE(pp.tie_embeddings);
  const model::ModelConfig g = model::preset("gpt2-tiny");
  EXPECT_EQ(g.norm_placement, "pre");
  EXPECT_EQ(g.norm, "layernorm");
  EXPECT_EQ(g.positions, "learned");
  EXPECT_EQ(g.attention.kind, "softmax");
  EXPECT_EQ(g.ffn.kind, "gelu");
  EXPECT_EQ(g.d_ff(), 4 * g.d_model);
  EXPECT_TRUE(g.attention.bias && g.ffn.bias);
  EXPECT_EQ(g.d_aux(), 0);
  // The JSON round trip keeps them, and an explicit key overrides a variant's default.
  EXPECT_EQ(model::to_json(model::model_config_from_json(model::to_json(pp))), model::to_json(pp));
  const model::ModelConfig over = model::model_config_from_json(nlohmann::json{{"variant", "transformerpp"}, {"norm", "layernorm"}});
  EXPECT_EQ(over.norm, "layernorm");
  EXPECT_EQ(over.ffn.kind, "swiglu");
  // PHA's own attention-only ablation is unchanged: post-norm cosine attention.
  const model::ModelConfig nogss = model::preset("pha-no-gss-tiny");
  EXPECT_EQ(nogss.norm_placement, "post");
  EXPECT_EQ(nogss.attention.kind, "cosine");
}

TEST(StandardBaselines, TransformerppForwardEqualsTheHandComposition) {
  const model::ModelConfig c = small("transformerpp");
  nn::PhaModel model(c);
  model->to(at::kDouble);
  randomize(*model);
  const at::Tensor tokens = at::tensor({3, 1, 4, 1, 5, 9, 2}, at::kLong).unsqueeze(0);
  at::Tensor x = param(*model, "embed.weight").index_select(0, tokens[0]);  // (T, d), no sqrt(d)
  const int64_t T = x.size(0), Hq = 2, G = 1, hd = 4;
  for (int l = 0; l < 2; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".sub.";
    at::Tensor h = rms_norm(x, param(*model, p + "0.norm.weight"), c.norm_eps);
    const at::Tensor qkv = lin(h, param(*model, p + "0.attn.w_qkv.weight"));
    const at::Tensor q = rope(qkv.narrow(1, 0, Hq * hd).view({T, Hq, hd}), c.attention.rope_theta);
    const at::Tensor k = rope(qkv.narrow(1, Hq * hd, G * hd).view({T, G, hd}), c.attention.rope_theta);
    const at::Tensor v = qkv.narrow(1, (Hq + G) * hd, G * hd).view({T, G, hd});
    x = x + lin(attention(q, k, v).reshape({T, Hq * hd}), param(*model, p + "0.attn.w_o.weight"));
    h = rms_norm(x, param(*model, p + "1.norm.weight"), c.norm_eps);
    const at::Tensor up = lin(h, param(*model, p + "1.ffn.up.weight"));  // gate rows, then value rows
    const at::Tensor gate = up.narrow(1, 0, 12), value = up.narrow(1, 12, 12);
    x = x + lin(gate * at::sigmoid(gate) * value, param(*model, p + "1.ffn.down.weight"));
  }
  const at::Tensor logits = lin(rms_norm(x, param(*model, "final_norm.weight"), c.norm_eps), param(*model, "embed.weight"));
  EXPECT_LT(rel_err(model->forward(tokens)[0], logits), 1e-12);
  EXPECT_EQ(model->num_parameters(), model::count_parameters(c).total);
}

TEST(StandardBaselines, Gpt2ForwardEqualsTheHandComposition) {
  const model::ModelConfig c = small("gpt2");
  nn::PhaModel model(c);
  model->to(at::kDouble);
  randomize(*model);
  const at::Tensor tokens = at::tensor({2, 7, 1, 8, 2, 8}, at::kLong).unsqueeze(0);
  const int64_t T = tokens.size(1), H = 2, hd = 4;
  at::Tensor x = param(*model, "embed.weight").index_select(0, tokens[0]) +
                 param(*model, "pos_embed.weight").narrow(0, 0, T);
  const double eps = c.norm_eps;
  for (int l = 0; l < 2; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".sub.";
    at::Tensor h = layer_norm(x, param(*model, p + "0.norm.weight"), param(*model, p + "0.norm.bias"), eps);
    const at::Tensor qkv = lin(h, param(*model, p + "0.attn.w_qkv.weight")) + param(*model, p + "0.attn.w_qkv.bias");
    const at::Tensor q = qkv.narrow(1, 0, H * hd).view({T, H, hd});  // no RoPE: learned positions
    const at::Tensor k = qkv.narrow(1, H * hd, H * hd).view({T, H, hd});
    const at::Tensor v = qkv.narrow(1, 2 * H * hd, H * hd).view({T, H, hd});
    x = x + lin(attention(q, k, v).reshape({T, H * hd}), param(*model, p + "0.attn.w_o.weight")) +
        param(*model, p + "0.attn.w_o.bias");
    h = layer_norm(x, param(*model, p + "1.norm.weight"), param(*model, p + "1.norm.bias"), eps);
    const at::Tensor a = lin(h, param(*model, p + "1.ffn.up.weight")) + param(*model, p + "1.ffn.up.bias");
    const at::Tensor gelu = 0.5 * a * (1.0 + at::erf(a / std::sqrt(2.0)));
    x = x + lin(gelu, param(*model, p + "1.ffn.down.weight")) + param(*model, p + "1.ffn.down.bias");
  }
  const at::Tensor hf = layer_norm(x, param(*model, "final_norm.weight"), param(*model, "final_norm.bias"), eps);
  EXPECT_LT(rel_err(model->forward(tokens)[0], lin(hf, param(*model, "embed.weight"))), 1e-12);
  EXPECT_EQ(model->num_parameters(), model::count_parameters(c).total);
}

TEST(StandardBaselines, DecodingMatchesTheFullForward) {
  for (const char* v : {"transformerpp", "gpt2"}) {
    SCOPED_TRACE(v);
    const model::ModelConfig c = small(v);
    nn::PhaModel model(c);
    model->to(at::kDouble);
    randomize(*model);
    torch::NoGradGuard no_grad;
    const at::Tensor tokens = at::tensor({1, 2, 3, 4, 5, 6, 7, 8}, at::kLong).view({2, 4});
    const at::Tensor full = model->forward(tokens);
    nn::DecodeState s = model->new_state(2);
    const at::Tensor pre = model->prefill(tokens.narrow(1, 0, 3), s);
    EXPECT_LT(rel_err(pre, full.narrow(1, 0, 3)), 1e-12);
    EXPECT_LT(rel_err(model->step(tokens.select(1, 3), s), full.select(1, 3)), 1e-12);
  }
}

TEST(StandardBaselines, LearnedPositionsRefuseSequencesBeyondTheContext) {
  nn::PhaModel model(small("gpt2"));  // context 16
  const at::Tensor tokens = at::zeros({1, 17}, at::kLong);
  try {
    model->forward(tokens);
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.context"), std::string::npos) << e.what();
  }
}

TEST(StandardBaselines, Gpt2InitialisationScalesTheResidualProjections) {
  model::ModelConfig c = model::make_variant_config("transformerpp", 260, 128, 6);
  nn::PhaModel model(c);
  const double s = 12;  // sub-layers
  for (const auto& e : nn::deepnorm_init_plan(*model)) {
    const at::Tensor w = param(*model, e.param).narrow(0, e.row_begin, e.fan_out).narrow(1, e.col_begin, e.fan_in);
    const double want = nn::is_residual_output(e) ? 0.02 / std::sqrt(s) : 0.02;
    EXPECT_NEAR(w.std().item<double>(), want, 0.1 * want) << e.name;
  }
  EXPECT_NEAR(model->embed->weight.std().item<double>(), 0.02, 0.002);
}

// A post-norm sub-layer of one branch normalises its branch output (branch_norm "all"); runs
// saved before the rule ("mixed", the value a saved config without the key gets) do not.
TEST(StandardBaselines, SingleBranchSublayersOfPostNormModelsCarryTheirBranchNorm) {
  model::ModelConfig c = model::make_variant_config("transformer", 37, 32, 2);
  EXPECT_EQ(c.branch_norm, "all");
  nn::PhaModel model(c);
  bool found = false;
  for (const auto& p : model->named_parameters()) found |= p.key() == "layers.0.sub.0.norm_attn.weight";
  EXPECT_TRUE(found);
  EXPECT_EQ(model->num_parameters(), model::count_parameters(c).total);
  nlohmann::json saved = model::to_json(c);
  saved.erase("branch_norm");
  model::apply_saved_model_defaults(saved);
  const model::ModelConfig old = model::model_config_from_json(saved);
  EXPECT_EQ(old.branch_norm, "mixed");
  nn::PhaModel old_model(old);
  EXPECT_EQ(old_model->num_parameters(), model::count_parameters(old).total);
  EXPECT_EQ(model->num_parameters() - old_model->num_parameters(), 4 * 32);  // one gain per sub-layer
}

}  // namespace
}  // namespace pha::nn
