// Multi-tensor AdamW vs torch::optim::AdamW (LibTorch's own step) and vs the per-tensor ATen
// reference, over several steps, with and without weight decay, for tensors smaller and larger
// than one parallel chunk. Tolerances: fp32 1e-6 relative, fp64 1e-13.
#include <gtest/gtest.h>

#include <torch/optim/adamw.h>
#include <torch/types.h>

#include "adamw/adamw.h"
#include "kernel_test_util.h"

namespace pha::kernels {
namespace {

using testing::rel_err;

std::vector<at::Tensor> make_params(at::ScalarType dt) {
  std::vector<at::Tensor> ps;
  for (int64_t n : {1, 7, 1000, 100000}) ps.push_back(at::randn({n}, at::TensorOptions().dtype(dt)));  // 100000 > one chunk
  ps.push_back(at::randn({33, 65}, at::TensorOptions().dtype(dt)));
  return ps;
}

void expect_matches_torch(at::ScalarType dt, double wd, double tol) {
  at::manual_seed(11);
  const std::vector<at::Tensor> init = make_params(dt);
  std::vector<at::Tensor> mine, theirs, m, v;
  for (const auto& p : init) {
    mine.push_back(p.clone());
    theirs.push_back(p.clone().requires_grad_(true));
    m.push_back(at::zeros_like(p));
    v.push_back(at::zeros_like(p));
  }
  AdamWHyper h;
  h.lr = 3e-3;
  h.beta1 = 0.9;
  h.beta2 = 0.95;
  h.eps = 1e-8;
  h.weight_decay = wd;
  torch::optim::AdamW opt(theirs, torch::optim::AdamWOptions(h.lr).betas({h.beta1, h.beta2}).eps(h.eps).weight_decay(wd));
  for (int step = 1; step <= 6; ++step) {
    std::vector<AdamWTensors> ts;
    for (size_t i = 0; i < init.size(); ++i) {
      const at::Tensor g = at::randn_like(init[i]) * (step % 2 ? 1.0 : 1e-3);  // moments of mixed size
      theirs[i].mutable_grad() = g.clone();
      ts.push_back({mine[i], g, m[i], v[i], step});
    }
    adamw_step(ts, h);
    opt.step();
  }
  for (size_t i = 0; i < init.size(); ++i) {
    EXPECT_LE(rel_err(mine[i], theirs[i].detach()), tol) << i;
    EXPECT_GT(rel_err(mine[i], init[i]), 1e-4) << i;  // it did move
  }
}

TEST(AdamW, Fp32MatchesTorchOptimizer) { expect_matches_torch(at::kFloat, 0.1, 1e-6); }
TEST(AdamW, Fp32WithoutDecayMatchesTorchOptimizer) { expect_matches_torch(at::kFloat, 0.0, 1e-6); }
TEST(AdamW, Fp64MatchesTorchOptimizer) { expect_matches_torch(at::kDouble, 0.1, 1e-13); }

TEST(AdamW, FusedMatchesReferenceAndUpdatesMoments) {
  at::manual_seed(12);
  const std::vector<at::Tensor> init = make_params(at::kFloat);
  std::vector<AdamWTensors> a, b;
  for (const auto& p : init) {
    const at::Tensor g = at::randn_like(p);
    a.push_back({p.clone(), g, at::randn_like(p) * 0.1, at::rand_like(p) * 0.01, 4});
    b.push_back({a.back().param.clone(), g, a.back().exp_avg.clone(), a.back().exp_avg_sq.clone(), 4});
  }
  AdamWHyper h;
  h.weight_decay = 0.05;
  adamw_step(a, h);
  ref::adamw_step(b, h);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_LE(rel_err(a[i].param, b[i].param), 1e-6) << i;
    EXPECT_LE(rel_err(a[i].exp_avg, b[i].exp_avg), 1e-6) << i;
    EXPECT_LE(rel_err(a[i].exp_avg_sq, b[i].exp_avg_sq), 1e-6) << i;
  }
}

TEST(AdamW, RejectsMismatchedShapes) {
  const at::Tensor p = at::randn({4});
  EXPECT_THROW(adamw_step({{p, at::randn({5}), at::zeros({4}), at::zeros({4}), 1}}, {}), c10::Error);
  EXPECT_THROW(adamw_step({{p, at::randn({4}), at::zeros({4}), at::zeros({4}), 0}}, {}), c10::Error);
}

}  // namespace
}  // namespace pha::kernels
