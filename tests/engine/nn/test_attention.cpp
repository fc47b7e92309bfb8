// Attention branch: GQA == MHA when G == Hq (against a reference written here), grouped ==
// MHA with explicitly repeated K/V heads, RoPE depends only on relative offsets, cosine logits
// stay within the clamped scale, KV-cache steps equal the full forward.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/types.h>

#include "attention/attention.h"
#include "core/error.h"
#include "nn/internal/attention_branch.h"
#include "rope_cosine/rope_cosine.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

using testing::rel_err;

model::ModelConfig attn_config(int heads, int kv_heads, int d = 32) {
  model::ModelConfig cfg = testing::tiny_config("transformer", d);
  cfg.attention.heads = heads;
  cfg.attention.kv_heads = kv_heads;
  cfg.attention.head_dim = d / heads;
  return cfg;
}

// RoPE written out element by element: pair (i, i + hd/2) at position m turns by m * theta_i.
at::Tensor rope_loops(const at::Tensor& x /*(T, hd)*/, double base) {
  const int64_t T = x.size(0), hd = x.size(1), half = hd / 2;
  at::Tensor out = x.clone();
  auto xa = x.accessor<double, 2>();
  auto oa = out.accessor<double, 2>();
  for (int64_t m = 0; m < T; ++m) {
    for (int64_t i = 0; i < half; ++i) {
      const double ang = static_cast<double>(m) * std::pow(base, -2.0 * static_cast<double>(i) / hd);
      oa[m][i] = xa[m][i] * std::cos(ang) - xa[m][i + half] * std::sin(ang);
      oa[m][i + half] = xa[m][i + half] * std::cos(ang) + xa[m][i] * std::sin(ang);
    }
  }
  return out;
}

// Plain multi-head attention of the branch (G == Hq), one head at a time, batch 1.
at::Tensor mha_reference(nn::AttentionBranch& attn, const model::ModelConfig& cfg, const at::Tensor& x /*(1,T,d)*/) {
  const int64_t T = x.size(1), H = cfg.attention.heads, hd = cfg.head_dim();
  const at::Tensor qkv = at::matmul(x[0], attn->w_qkv->weight.t());  // (T, 3*H*hd)
  std::vector<at::Tensor> heads;
  const at::Tensor mask = at::ones({T, T}, at::kBool).triu(1);
  for (int64_t h = 0; h < H; ++h) {
    at::Tensor q = rope_loops(qkv.narrow(1, h * hd, hd).contiguous(), cfg.attention.rope_theta);
    at::Tensor k = rope_loops(qkv.narrow(1, (H + h) * hd, hd).contiguous(), cfg.attention.rope_theta);
    const at::Tensor v = qkv.narrow(1, (2 * H + h) * hd, hd);
    q = q / q.norm(2, {1}, true);
    k = k / k.norm(2, {1}, true);
    const double scale = std::exp(std::min(attn->log_scale[h].item<double>(), cfg.attention.scale_max));
    const at::Tensor logits = at::matmul(q, k.t()).mul(scale).masked_fill(mask, -INFINITY);
    heads.push_back(at::matmul(at::softmax(logits, 1), v));  // (T, hd)
  }
  return at::matmul(at::cat(heads, 1), attn->w_o->weight.t()).unsqueeze(0);  // (1, T, d)
}

TEST(AttentionBranch, EqualHeadsIsPlainMultiHeadAttention) {
  torch::NoGradGuard no_grad;
  at::manual_seed(10);
  const model::ModelConfig cfg = attn_config(4, 4);
  nn::AttentionBranch attn(cfg);
  attn->to(at::kDouble);
  attn->log_scale.copy_(at::tensor({0.5, 2.3, 4.0, 6.0}, at::kDouble));  // last one above the clamp
  const at::Tensor x = at::randn({1, 19, 32}, at::kDouble);
  EXPECT_LE(rel_err(attn(x), mha_reference(attn, cfg, x)), 1e-12);
}

TEST(AttentionBranch, GroupedEqualsRepeatedKvHeads) {
  torch::NoGradGuard no_grad;
  at::manual_seed(11);
  const model::ModelConfig gcfg = attn_config(4, 2), mcfg = attn_config(4, 4);
  nn::AttentionBranch grouped(gcfg), mha(mcfg);
  grouped->to(at::kDouble);
  mha->to(at::kDouble);
  const int64_t hd = 8, H = 4;
  // MHA weights: Q as in the grouped branch; K/V head h = grouped KV head h / 2.
  const at::Tensor gw = grouped->w_qkv->weight;  // ((4 + 2*2) * 8, 32)
  at::Tensor mw = mha->w_qkv->weight;            // ((4 + 2*4) * 8, 32)
  mw.narrow(0, 0, H * hd).copy_(gw.narrow(0, 0, H * hd));
  for (int64_t h = 0; h < H; ++h) {
    mw.narrow(0, (H + h) * hd, hd).copy_(gw.narrow(0, (H + h / 2) * hd, hd));
    mw.narrow(0, (2 * H + h) * hd, hd).copy_(gw.narrow(0, (H + 2 + h / 2) * hd, hd));
  }
  mha->w_o->weight.copy_(grouped->w_o->weight);
  mha->log_scale.copy_(at::tensor({1.0, 2.0, 3.0, 4.0}, at::kDouble));
  grouped->log_scale.copy_(mha->log_scale);
  const at::Tensor x = at::randn({3, 23, 32}, at::kDouble);
  EXPECT_LE(rel_err(grouped(x), mha(x)), 1e-12);
}

TEST(Rope, ScoresDependOnlyOnRelativeOffset) {
  at::manual_seed(12);
  const int64_t hd = 16;
  const at::Tensor q = at::randn({1, 1, 1, hd}, at::kDouble), k = at::randn({1, 1, 1, hd}, at::kDouble);
  auto score = [&](int64_t m, int64_t n) {
    const auto o = at::TensorOptions().dtype(at::kDouble);
    const at::Tensor qr = pha::kernels::apply_rope(q, pha::kernels::rope_tables(m, 1, hd, 10000.0, o));
    const at::Tensor kr = pha::kernels::apply_rope(k, pha::kernels::rope_tables(n, 1, hd, 10000.0, o));
    return (qr * kr).sum().item<double>();
  };
  for (int64_t shift : {1, 7, 100, 5000}) {
    EXPECT_NEAR(score(9, 4), score(9 + shift, 4 + shift), 1e-9) << shift;
    EXPECT_NEAR(score(3, 3), score(3 + shift, 3 + shift), 1e-9) << shift;
  }
  EXPECT_GT(std::abs(score(9, 4) - score(9, 5)), 1e-6);  // and the offset itself does matter
  // Rotation keeps the norm (so normalising after RoPE is the same as before).
  const at::Tensor r = pha::kernels::apply_rope(q, pha::kernels::rope_tables(1234, 1, hd, 10000.0, at::TensorOptions().dtype(at::kDouble)));
  EXPECT_NEAR(r.norm().item<double>(), q.norm().item<double>(), 1e-12);
}

TEST(CosineAttention, LogitsStayWithinClampedScale) {
  at::manual_seed(13);
  const at::Tensor q = at::randn({2, 9, 4, 8}, at::kDouble) * 50.0;
  const at::Tensor log_scale = at::tensor({-1.0, std::log(10.0), std::log(100.0), 9.0}, at::kDouble);
  const double max_log = std::log(100.0);
  const at::Tensor qn = pha::kernels::cosine_queries(q, log_scale, max_log);  // (2, 9, 4, 8)
  const at::Tensor k = pha::kernels::cosine_keys(at::randn({2, 9, 4, 8}, at::kDouble) * 0.01);
  const at::Tensor logits = at::einsum("bthd,bshd->bhts", {qn, k});
  for (int64_t h = 0; h < 4; ++h) {
    const double bound = std::exp(std::min(log_scale[h].item<double>(), max_log));
    EXPECT_LE(testing::max_abs(logits.select(1, h)), bound * (1 + 1e-12)) << h;
    EXPECT_NEAR(qn.select(2, h).norm(2, {-1}).max().item<double>(), bound, 1e-9 * bound) << h;
  }
  // s = 9 behaves exactly like s = ln 100 (the clamp), and the clamp stops its gradient.
  const at::Tensor v = at::randn({2, 9, 2, 8}, at::kDouble);
  const at::Tensor kk = at::randn({2, 9, 2, 8}, at::kDouble);
  at::Tensor s_hi = at::tensor({1.0, 2.0, 3.0, 9.0}, at::kDouble).requires_grad_(true);
  const at::Tensor s_cl = at::tensor({1.0, 2.0, 3.0, max_log}, at::kDouble);
  const at::Tensor a = pha::kernels::cosine_attention(q, kk, v, s_hi, max_log);
  const at::Tensor b = pha::kernels::cosine_attention(q, kk, v, s_cl, max_log);
  EXPECT_LE(rel_err(a, b), 1e-14);
  a.sum().backward();
  EXPECT_EQ(s_hi.grad()[3].item<double>(), 0.0);
  EXPECT_NE(s_hi.grad()[0].item<double>(), 0.0);
}

TEST(AttentionBranch, KvCacheStepsEqualForward) {
  torch::NoGradGuard no_grad;
  at::manual_seed(14);
  nn::AttentionBranch attn(attn_config(4, 2));
  attn->to(at::kDouble);
  const at::Tensor x = at::randn({2, 30, 32}, at::kDouble);
  const at::Tensor full = attn(x);
  nn::KvCache cache;
  const at::Tensor head = attn->prefill(x.narrow(1, 0, 11), cache);
  EXPECT_EQ(cache.len, 11);
  EXPECT_EQ(cache.k.size(2), 2);  // G heads cached, not Hq
  std::vector<at::Tensor> ys = {head};
  for (int64_t t = 11; t < 30; ++t) ys.push_back(attn->step(x.narrow(1, t, 1), cache));
  EXPECT_LE(rel_err(at::cat(ys, 1), full), 1e-12);
}

TEST(AttentionBranch, RejectsKvHeadsThatDoNotDivide) {
  try {
    nn::AttentionBranch a(attn_config(4, 3));
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where(), "model.attention.kv_heads");
  }
}

}  // namespace
}  // namespace pha::nn
