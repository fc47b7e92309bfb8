// Fused branch RMSNorms + mixer + DeepNorm residual + LayerNorm vs its unfused reference, for
// one to three branches, with and without branch norms and mixer weights: the output, the
// per-row branch statistics, and the gradients of every input. Tolerances: fp64 1e-10, fp32
// 1e-5; bf16 branch outputs with fp32 master 1e-5 (same values, fp32 arithmetic) and 1e-2 for
// the bf16 branch gradients.
#include <gtest/gtest.h>

#include <tuple>

#include <torch/types.h>

#include "kernel_test_util.h"
#include "mix_norm/mix_norm.h"

namespace pha::kernels {
namespace {

using testing::grads_of;
using testing::rel_err;

struct Case {
  MixNormInputs in;
  at::Tensor w;                     // loss weights
  std::vector<at::Tensor> leaves;   // every differentiable input
};

Case make_case(int n, bool normed, bool mixed, at::ScalarType ydt, at::ScalarType xdt) {
  const int64_t B = 3, T = 70, d = 24;  // 210 rows: several row chunks, the last one partial
  const auto o = at::TensorOptions().dtype(at::kDouble);
  Case c;
  for (int b = 0; b < n; ++b) {
    c.in.ys.push_back((at::randn({B, T, d}, o) * (b + 0.5)).to(ydt).requires_grad_(true));
    if (normed) c.in.gains.push_back((1 + 0.3 * at::randn({d}, o)).to(xdt).requires_grad_(true));
  }
  if (mixed) c.in.mix = at::softmax(at::randn({n}, o), 0).to(xdt).requires_grad_(true);
  c.in.x = at::randn({B, T, d}, o).to(xdt).requires_grad_(true);
  c.in.alpha = 1.68;
  c.in.ln_weight = (1 + 0.2 * at::randn({d}, o)).to(xdt).requires_grad_(true);
  c.in.ln_bias = (0.1 * at::randn({d}, o)).to(xdt).requires_grad_(true);
  c.w = at::randn({B, T, d}, o).to(xdt);
  for (const auto& y : c.in.ys) c.leaves.push_back(y);
  for (const auto& g : c.in.gains) c.leaves.push_back(g);
  if (mixed) c.leaves.push_back(c.in.mix);
  for (const at::Tensor* t : {&c.in.x, &c.in.ln_weight, &c.in.ln_bias}) c.leaves.push_back(*t);
  return c;
}

// (branches, normed, mixed)
class MixNorm : public ::testing::TestWithParam<std::tuple<int, bool, bool>> {};

void expect_match(const Case& c, double tol, double y_grad_tol) {
  const MixNormOut a = mix_residual_norm(c.in), b = ref::mix_residual_norm(c.in);
  EXPECT_EQ(a.out.scalar_type(), c.in.x.scalar_type());
  EXPECT_LE(rel_err(a.out, b.out), tol);
  EXPECT_LE(rel_err(a.ms, b.ms), tol);
  const auto ga = grads_of([&] { return (mix_residual_norm(c.in).out * c.w).sum(); }, c.leaves);
  const auto gb = grads_of([&] { return (ref::mix_residual_norm(c.in).out * c.w).sum(); }, c.leaves);
  const size_t n = c.in.ys.size();
  for (size_t i = 0; i < ga.size(); ++i) EXPECT_LE(rel_err(ga[i], gb[i]), i < n ? y_grad_tol : tol) << "input " << i;
}

TEST_P(MixNorm, Fp64MatchesReference) {
  const auto [n, normed, mixed] = GetParam();
  at::manual_seed(n * 4 + normed * 2 + mixed);
  expect_match(make_case(n, normed, mixed, at::kDouble, at::kDouble), 1e-10, 1e-10);
}

TEST_P(MixNorm, Fp32MatchesReference) {
  const auto [n, normed, mixed] = GetParam();
  at::manual_seed(n * 4 + normed * 2 + mixed + 100);
  expect_match(make_case(n, normed, mixed, at::kFloat, at::kFloat), 1e-5, 1e-5);
}

TEST_P(MixNorm, Bf16BranchesMatchReference) {
  const auto [n, normed, mixed] = GetParam();
  at::manual_seed(n * 4 + normed * 2 + mixed + 200);
  expect_match(make_case(n, normed, mixed, at::kBFloat16, at::kFloat), 1e-5, 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Kernels, MixNorm,
                         ::testing::Values(std::make_tuple(1, false, false), std::make_tuple(2, true, true),
                                           std::make_tuple(3, true, true), std::make_tuple(3, true, false),
                                           std::make_tuple(2, false, true)));

TEST(MixNormOps, Bf16BranchesAreWithinBf16ToleranceOfFp32) {
  at::manual_seed(300);
  const Case c = make_case(3, true, true, at::kFloat, at::kFloat);
  MixNormInputs half = c.in;
  for (auto& y : half.ys) y = y.to(at::kBFloat16);
  EXPECT_LE(rel_err(mix_residual_norm(half).out, mix_residual_norm(c.in).out), 1e-2);
}

TEST(MixNormOps, RejectsBadInputs) {
  const Case c = make_case(2, true, true, at::kFloat, at::kFloat);
  MixNormInputs bad = c.in;
  bad.gains.pop_back();
  EXPECT_THROW(mix_residual_norm(bad), c10::Error);
  bad = c.in;
  bad.ys[1] = bad.ys[1].narrow(1, 0, 10);
  EXPECT_THROW(mix_residual_norm(bad), c10::Error);
  bad = c.in;
  bad.mix = at::ones({3});
  EXPECT_THROW(mix_residual_norm(bad), c10::Error);
  bad = c.in;
  bad.ys.clear();
  EXPECT_THROW(mix_residual_norm(bad), c10::Error);
}

}  // namespace
}  // namespace pha::kernels
