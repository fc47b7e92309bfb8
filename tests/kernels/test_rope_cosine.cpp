// Fused RoPE + cosine normalisation + scale vs its unfused reference: outputs and gradients
// (w.r.t. the fused projection and the log-scales), strided input as the attention branch
// passes it, a head over the scale clamp and a zero row. Tolerances: fp64 1e-12, fp32 1e-5,
// bf16 input 1e-5 (both compute in fp32 from the same values) and 1e-2 for its bf16 gradient.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/types.h>

#include "kernel_test_util.h"
#include "rope_cosine/rope_cosine.h"

namespace pha::kernels {
namespace {

using testing::grads_of;
using testing::rel_err;

struct Case {
  at::Tensor qkv, log_scale, w_q, w_k;
  RopeTables tables;
  int64_t Hq, G;
};

Case make_case(at::ScalarType dt, int64_t pos0) {
  const int64_t B = 2, T = 13, Hq = 4, G = 2, hd = 8;
  const auto o = at::TensorOptions().dtype(at::kDouble);
  Case c;
  c.Hq = Hq;
  c.G = G;
  c.qkv = at::randn({B, T, Hq + 2 * G, hd}, o).to(dt).requires_grad_(true);  // q, k, v heads
  const at::ScalarType master = dt == at::kDouble ? at::kDouble : at::kFloat;
  c.log_scale = at::tensor({0.5, 2.3, 4.0, 9.0}, o).to(master).requires_grad_(true);  // the last above the clamp
  c.w_q = at::randn({B, T, Hq, hd}, o);
  c.w_k = at::randn({B, T, G, hd}, o);
  c.tables = rope_tables(pos0, T, hd, 10000.0, o);
  return c;
}

// loss = sum(q * w_q) + sum(k * w_k), computed by the fused op or the reference
at::Tensor loss(const Case& c, bool fused) {
  const at::Tensor qk = c.qkv.narrow(2, 0, c.Hq + c.G);  // strided view, as in the branch
  const RopeCosine r = fused ? rope_cosine(qk, c.Hq, c.tables, c.log_scale, std::log(100.0))
                             : ref::rope_cosine(qk, c.Hq, c.tables, c.log_scale, std::log(100.0));
  return (r.q * c.w_q.to(r.q.scalar_type())).sum() + (r.k * c.w_k.to(r.k.scalar_type())).sum();
}

void expect_match(at::ScalarType dt, double tol, double grad_tol) {
  at::manual_seed(7);
  const Case c = make_case(dt, 5);
  const at::Tensor qk = c.qkv.narrow(2, 0, c.Hq + c.G);
  const RopeCosine a = rope_cosine(qk, c.Hq, c.tables, c.log_scale, std::log(100.0));
  const RopeCosine b = ref::rope_cosine(qk, c.Hq, c.tables, c.log_scale, std::log(100.0));
  EXPECT_EQ(a.q.scalar_type(), dt == at::kDouble ? at::kDouble : at::kFloat);
  EXPECT_LE(rel_err(a.q, b.q), tol);
  EXPECT_LE(rel_err(a.k, b.k), tol);
  const auto ga = grads_of([&] { return loss(c, true); }, {c.qkv, c.log_scale});
  const auto gb = grads_of([&] { return loss(c, false); }, {c.qkv, c.log_scale});
  EXPECT_LE(rel_err(ga[0], gb[0]), grad_tol);
  EXPECT_LE(rel_err(ga[1], gb[1]), tol * 10);
  EXPECT_EQ(ga[1][3].item<double>(), 0.0);  // the clamp stops the gradient of the last head
  EXPECT_NE(ga[1][0].item<double>(), 0.0);
  // the v heads get no gradient from this op
  EXPECT_EQ(ga[0].narrow(2, c.Hq + c.G, c.G).abs().max().item<double>(), 0.0);
}

TEST(RopeCosine, Fp64MatchesReference) { expect_match(at::kDouble, 1e-12, 1e-12); }
TEST(RopeCosine, Fp32MatchesReference) { expect_match(at::kFloat, 1e-5, 1e-5); }
TEST(RopeCosine, Bf16InputMatchesReference) { expect_match(at::kBFloat16, 1e-5, 1e-2); }

TEST(RopeCosine, Bf16InputIsWithinBf16ToleranceOfFp32) {
  at::manual_seed(8);
  const Case c = make_case(at::kFloat, 0);
  const at::Tensor qk = c.qkv.narrow(2, 0, c.Hq + c.G);
  const RopeCosine full = rope_cosine(qk, c.Hq, c.tables, c.log_scale, std::log(100.0));
  const RopeCosine half = rope_cosine(qk.to(at::kBFloat16), c.Hq, c.tables, c.log_scale, std::log(100.0));
  EXPECT_LE(rel_err(half.q, full.q), 1e-2);
  EXPECT_LE(rel_err(half.k, full.k), 1e-2);
}

TEST(RopeCosine, ZeroRowsStayFiniteAndMatchReference) {
  at::manual_seed(9);
  Case c = make_case(at::kDouble, 0);
  {
    torch::NoGradGuard no_grad;
    c.qkv.select(1, 3).zero_();  // every head of one position
  }
  const at::Tensor qk = c.qkv.narrow(2, 0, c.Hq + c.G);
  const RopeCosine a = rope_cosine(qk, c.Hq, c.tables, c.log_scale, std::log(100.0));
  EXPECT_EQ(a.q.select(1, 3).abs().max().item<double>(), 0.0);
  const auto ga = grads_of([&] { return loss(c, true); }, {c.qkv, c.log_scale});
  const auto gb = grads_of([&] { return loss(c, false); }, {c.qkv, c.log_scale});
  EXPECT_TRUE(ga[0].isfinite().all().item<bool>());
  EXPECT_LE(rel_err(ga[0], gb[0]), 1e-12);
}

TEST(RopeCosine, RejectsBadShapes) {
  const at::Tensor qk = at::randn({1, 4, 3, 8});
  const RopeTables t = rope_tables(0, 4, 8, 10000.0, at::TensorOptions());
  EXPECT_THROW(rope_cosine(qk, 3, t, at::zeros({3}), 4.6), c10::Error);                   // no key head
  EXPECT_THROW(rope_cosine(qk, 2, t, at::zeros({3}), 4.6), c10::Error);                   // log_scale size
  EXPECT_THROW(rope_cosine(qk, 2, rope_tables(0, 5, 8, 1e4, {}), at::zeros({2}), 4.6), c10::Error);  // T
}

}  // namespace
}  // namespace pha::kernels
