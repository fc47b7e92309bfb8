// GSS ops: dispatching DSS-EXP kernel vs the complex-arithmetic reference, FFT convolution vs
// the direct O(T^2) convolution, gradients of both paths. Tolerances: fp64 1e-10 relative,
// fp32 1e-5 relative (FFT rounding grows like log T).
#include <gtest/gtest.h>

#include <torch/types.h>

#include "gss_conv/gss_conv.h"

namespace pha::kernels {
namespace {

double rel_err(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() /
         b.to(at::kDouble).abs().max().item<double>();
}

struct Params {
  at::Tensor lre, lim, cre, cim, D;
};
Params random_params(int64_t H, int64_t N, at::ScalarType dt) {
  const auto o = at::TensorOptions().dtype(dt);
  return {at::randn({N}, o), at::randn({N}, o), at::randn({H, N}, o), at::randn({H, N}, o), at::randn({H}, o)};
}

TEST(DssKernel, MatchesComplexReference) {
  at::manual_seed(1);
  for (auto dt : {at::kDouble, at::kFloat}) {
    const Params p = random_params(12, 32, dt);
    for (int64_t T : {1, 17, 512, 4096}) {
      const at::Tensor k = dss_kernel(p.lre, p.lim, p.cre, p.cim, T);
      EXPECT_EQ(k.sizes(), (std::vector<int64_t>{12, T}));
      EXPECT_EQ(k.scalar_type(), dt);
      EXPECT_LE(rel_err(k, ref::dss_kernel(p.lre, p.lim, p.cre, p.cim, T)), dt == at::kDouble ? 1e-10 : 1e-5)
          << "T=" << T;
    }
  }
}

TEST(DssKernel, GradientsMatchReference) {
  at::manual_seed(2);
  Params p = random_params(6, 8, at::kDouble);
  for (at::Tensor* t : {&p.lre, &p.lim, &p.cre, &p.cim}) t->requires_grad_(true);
  const at::Tensor w = at::randn({6, 100}, at::kDouble);
  (dss_kernel(p.lre, p.lim, p.cre, p.cim, 100) * w).sum().backward();
  std::vector<at::Tensor> g;
  for (at::Tensor* t : {&p.lre, &p.lim, &p.cre, &p.cim}) {
    g.push_back(t->grad().clone());
    t->mutable_grad() = at::Tensor();
  }
  (ref::dss_kernel(p.lre, p.lim, p.cre, p.cim, 100) * w).sum().backward();
  int i = 0;
  for (at::Tensor* t : {&p.lre, &p.lim, &p.cre, &p.cim}) EXPECT_LE(rel_err(g[i++], t->grad()), 1e-10);
}

// T over one chunk of the power basis (1024 positions): forward and gradients across chunks.
TEST(DssKernel, ChunkedGradientsMatchReference) {
  at::manual_seed(6);
  Params p = random_params(3, 5, at::kDouble);
  {
    torch::NoGradGuard no_grad;
    p.lre.sub_(8.0);  // slow decays, so that positions in the later chunks matter
  }
  for (at::Tensor* t : {&p.lre, &p.lim, &p.cre, &p.cim}) t->requires_grad_(true);
  const int64_t T = 2500;
  const at::Tensor w = at::randn({3, T}, at::kDouble);
  const at::Tensor k = dss_kernel(p.lre, p.lim, p.cre, p.cim, T);
  EXPECT_LE(rel_err(k, ref::dss_kernel(p.lre, p.lim, p.cre, p.cim, T)), 1e-10);
  EXPECT_GT(k.narrow(1, 2048, T - 2048).abs().max().item<double>(), 1e-3 * k.abs().max().item<double>());
  (k * w).sum().backward();
  std::vector<at::Tensor> g;
  for (at::Tensor* t : {&p.lre, &p.lim, &p.cre, &p.cim}) {
    g.push_back(t->grad().clone());
    t->mutable_grad() = at::Tensor();
  }
  (ref::dss_kernel(p.lre, p.lim, p.cre, p.cim, T) * w).sum().backward();
  int i = 0;
  for (at::Tensor* t : {&p.lre, &p.lim, &p.cre, &p.cim}) EXPECT_LE(rel_err(g[i++], t->grad()), 1e-9) << i;
}

TEST(GssCausalConv, FftEqualsDirectConvolution) {
  at::manual_seed(3);
  for (auto dt : {at::kDouble, at::kFloat}) {
    for (int64_t T : {1, 2, 33, 256, 1000}) {
      const Params p = random_params(5, 16, dt);
      const at::Tensor K = dss_kernel(p.lre, p.lim, p.cre, p.cim, T);
      const at::Tensor z = at::randn({3, T, 5}, at::TensorOptions().dtype(dt));
      const at::Tensor y = gss_causal_conv(z, K, p.D);
      EXPECT_EQ(y.sizes(), z.sizes());
      EXPECT_LE(rel_err(y, ref::gss_causal_conv(z, K, p.D)), dt == at::kDouble ? 1e-10 : 1e-5) << "T=" << T;
    }
  }
}

TEST(GssCausalConv, GradientsMatchDirectConvolution) {
  at::manual_seed(4);
  const Params p = random_params(4, 8, at::kDouble);
  const at::Tensor K = at::randn({4, 50}, at::kDouble).requires_grad_(true);
  const at::Tensor D = p.D.clone().requires_grad_(true);
  const at::Tensor z = at::randn({2, 50, 4}, at::kDouble).requires_grad_(true);
  const at::Tensor w = at::randn({2, 50, 4}, at::kDouble);
  (gss_causal_conv(z, K, D) * w).sum().backward();
  const at::Tensor gz = z.grad().clone(), gk = K.grad().clone(), gd = D.grad().clone();
  for (const at::Tensor* t : {&z, &K, &D}) const_cast<at::Tensor*>(t)->mutable_grad() = at::Tensor();
  (ref::gss_causal_conv(z, K, D) * w).sum().backward();
  EXPECT_LE(rel_err(gz, z.grad()), 1e-10);
  EXPECT_LE(rel_err(gk, K.grad()), 1e-10);
  EXPECT_LE(rel_err(gd, D.grad()), 1e-10);
}

TEST(GssCausalConv, IsCausal) {
  at::manual_seed(5);
  const at::Tensor K = at::randn({3, 64}, at::kDouble), D = at::randn({3}, at::kDouble);
  const at::Tensor z = at::randn({1, 64, 3}, at::kDouble);
  at::Tensor z2 = z.clone();
  z2.narrow(1, 40, 24).normal_();
  const at::Tensor a = gss_causal_conv(z, K, D), b = gss_causal_conv(z2, K, D);
  EXPECT_LE((a.narrow(1, 0, 40) - b.narrow(1, 0, 40)).abs().max().item<double>(), 1e-12);
  EXPECT_GT((a.narrow(1, 40, 1) - b.narrow(1, 40, 1)).abs().max().item<double>(), 1e-6);
}

TEST(GssOps, CheckShapesAndDtypes) {
  const at::Tensor z = at::randn({2, 8, 3}), K = at::randn({3, 8}), D = at::randn({3});
  EXPECT_THROW(gss_causal_conv(z, at::randn({3, 7}), D), c10::Error);
  EXPECT_THROW(gss_causal_conv(z, K, at::randn({4})), c10::Error);
  EXPECT_THROW(gss_causal_conv(z, K.to(at::kDouble), D), c10::Error);
  EXPECT_THROW(gss_causal_conv(at::randn({8, 3}), K, D), c10::Error);
  EXPECT_THROW(dss_kernel(at::randn({4}), at::randn({5}), at::randn({3, 4}), at::randn({3, 4}), 8), c10::Error);
  EXPECT_THROW(dss_kernel(at::randn({4}), at::randn({4}), at::randn({3, 4}), at::randn({3, 5}), 8), c10::Error);
}

}  // namespace
}  // namespace pha::kernels
