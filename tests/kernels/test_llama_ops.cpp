// Fused RMSNorm, RoPE of q and k and SwiGLU (kernels/llama_ops) against their unfused references:
// outputs and gradients (x and the norm's weight; the strided q / k view of the fused projection;
// the packed gate / value), fp32 and fp64; RoPE bit for bit (the same operations per element), the
// others within 1e-6 (fp32) and 1e-13 (fp64); the weight gradient the same whatever the threads.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>
#include <torch/types.h>

#include "common/kernel_select.h"
#include "kernel_test_util.h"
#include "llama_ops/llama_ops.h"

namespace pha::kernels {
namespace {

using testing::grads_of;
using testing::rel_err;

void rms_matches(at::ScalarType dt, double tol) {
  at::manual_seed(11);
  const auto o = at::TensorOptions().dtype(dt);
  const at::Tensor x = (at::randn({3, 37, 48}, o) * 3).requires_grad_(true);
  const at::Tensor w = (at::rand({48}, o) + 0.5).requires_grad_(true);
  const at::Tensor up = at::randn({3, 37, 48}, o);
  const at::Tensor a = rms_norm(x, w, 1e-6), b = ref::rms_norm(x, w, 1e-6);
  EXPECT_LE(rel_err(a, b), tol);
  const auto ga = grads_of([&] { return (rms_norm(x, w, 1e-6) * up).sum(); }, {x, w});
  const auto gb = grads_of([&] { return (ref::rms_norm(x, w, 1e-6) * up).sum(); }, {x, w});
  EXPECT_LE(rel_err(ga[0], gb[0]), tol * 10);
  EXPECT_LE(rel_err(ga[1], gb[1]), tol * 10);
}

TEST(LlamaOps, RmsNormMatchesTheReferenceFp32) { rms_matches(at::kFloat, 1e-6); }
TEST(LlamaOps, RmsNormMatchesTheReferenceFp64) { rms_matches(at::kDouble, 1e-13); }

TEST(LlamaOps, RmsNormWeightGradientDoesNotDependOnThreads) {
  at::manual_seed(3);
  const at::Tensor x = at::randn({4, 200, 64}).requires_grad_(true);
  const at::Tensor w = at::rand({64}).requires_grad_(true);
  const int before = at::get_num_threads();
  at::set_num_threads(1);
  const auto one = grads_of([&] { return rms_norm(x, w, 1e-5).pow(2).sum(); }, {x, w});
  at::set_num_threads(2);
  const auto two = grads_of([&] { return rms_norm(x, w, 1e-5).pow(2).sum(); }, {x, w});
  at::set_num_threads(before);
  EXPECT_TRUE(at::equal(one[0], two[0]));
  EXPECT_TRUE(at::equal(one[1], two[1]));
}

void rope_matches(at::ScalarType dt) {
  at::manual_seed(5);
  const int64_t B = 2, T = 11, Hq = 4, G = 2, hd = 16;
  const auto o = at::TensorOptions().dtype(dt);
  const at::Tensor qkv = at::randn({B, T, Hq + 2 * G, hd}, o).requires_grad_(true);
  const RopeTables tb = rope_tables(3, T, hd, 10000.0, o);
  const at::Tensor wq = at::randn({B, T, Hq, hd}, o), wk = at::randn({B, T, G, hd}, o);
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  const at::Tensor qk = qkv.narrow(2, 0, Hq + G);  // a strided view, as in the branch
  auto loss = [&](bool fused, bool k_only) {
    const RopeQK r = fused ? rope_qk(qk, Hq, tb, scale) : ref::rope_qk(qk, Hq, tb, scale);
    return k_only ? (r.k * wk).sum() : (r.q * wq).sum() + (r.k * wk).sum();
  };
  const RopeQK a = rope_qk(qk, Hq, tb, scale), b = ref::rope_qk(qk, Hq, tb, scale);
  EXPECT_TRUE(at::equal(a.q, b.q));  // bit for bit
  EXPECT_TRUE(at::equal(a.k, b.k));
  for (bool k_only : {false, true}) {  // k_only: no gradient reaches q (its rows are zero)
    const auto ga = grads_of([&] { return loss(true, k_only); }, {qkv});
    const auto gb = grads_of([&] { return loss(false, k_only); }, {qkv});
    EXPECT_LE(rel_err(ga[0], gb[0]), dt == at::kDouble ? 1e-14 : 1e-6) << "k_only " << k_only;
  }
}

void swiglu_matches(at::ScalarType dt, double tol) {
  at::manual_seed(9);
  const auto o = at::TensorOptions().dtype(dt);
  const at::Tensor gv = (at::randn({3, 17, 2 * 40}, o) * 4).requires_grad_(true);
  const at::Tensor up = at::randn({3, 17, 40}, o);
  EXPECT_LE(rel_err(swiglu(gv), ref::swiglu(gv)), tol);
  const auto ga = grads_of([&] { return (swiglu(gv) * up).sum(); }, {gv});
  const auto gb = grads_of([&] { return (ref::swiglu(gv) * up).sum(); }, {gv});
  EXPECT_LE(rel_err(ga[0], gb[0]), tol * 10);
}

TEST(LlamaOps, SwigluMatchesTheReferenceFp32) { swiglu_matches(at::kFloat, 1e-6); }
TEST(LlamaOps, SwigluMatchesTheReferenceFp64) { swiglu_matches(at::kDouble, 1e-13); }

TEST(LlamaOps, RopeMatchesTheReferenceFp32) { rope_matches(at::kFloat); }
TEST(LlamaOps, RopeMatchesTheReferenceFp64) { rope_matches(at::kDouble); }

TEST(LlamaOps, TheReferenceSelectionRunsTheUnfusedForms) {
  select_kernels("reference:rms_norm,rope,swiglu");
  EXPECT_TRUE(reference_kernel(KernelOp::RmsNorm));
  EXPECT_TRUE(reference_kernel(KernelOp::Rope));
  EXPECT_TRUE(reference_kernel(KernelOp::Swiglu));
  EXPECT_FALSE(reference_kernel(KernelOp::MixNorm));
  EXPECT_EQ(kernel_selection(), "reference:rms_norm,rope,swiglu");
  select_kernels("fused");
}

}  // namespace
}  // namespace pha::kernels
