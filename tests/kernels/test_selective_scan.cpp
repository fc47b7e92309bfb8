// Selective scan (S6): the fused CPU scan against the naive per-step loop (ref::), forward and
// gradients of every input, fp64 (1e-10) and fp32 (1e-5 relative), shapes with T = 1, odd
// channel counts (a partial channel chunk) and T across several backward segments; a
// finite-difference check in fp64; the state-carrying forward and the decoding step against
// the scan; bf16 inputs computed in fp32.
#include <gtest/gtest.h>

#include <torch/types.h>

#include "kernel_test_util.h"
#include "selective_scan/selective_scan.h"

namespace pha::kernels {
namespace {

using testing::grads_of;
using testing::rel_err;

// Inputs in the ranges the S6 branch produces: Delta = softplus(.) > 0, A = -exp(A_log) < 0.
struct ScanInputs {
  at::Tensor u, delta, A, B, C;
  std::vector<at::Tensor> all() const { return {u, delta, A, B, C}; }
};

ScanInputs scan_inputs(int64_t Bn, int64_t T, int64_t D, int64_t N, at::ScalarType dt, bool grad = false) {
  const auto o = at::TensorOptions().dtype(dt);
  ScanInputs in{at::randn({Bn, T, D}, o), at::softplus(at::randn({Bn, T, D}, o) - 1.0),
                -at::exp(at::randn({D, N}, o) * 0.5), at::randn({Bn, T, N}, o), at::randn({Bn, T, N}, o)};
  if (grad)
    for (at::Tensor* t : {&in.u, &in.delta, &in.A, &in.B, &in.C}) t->requires_grad_(true);
  return in;
}

struct Shape {
  int64_t B, T, D, N;
};
const Shape kShapes[] = {{1, 1, 1, 1}, {2, 1, 5, 3}, {3, 7, 17, 4}, {2, 65, 16, 16}, {1, 150, 33, 8}};

TEST(SelectiveScan, ForwardMatchesNaiveLoop) {
  at::manual_seed(11);
  for (auto dt : {at::kDouble, at::kFloat}) {
    for (const Shape& s : kShapes) {
      const ScanInputs in = scan_inputs(s.B, s.T, s.D, s.N, dt);
      const at::Tensor y = selective_scan(in.u, in.delta, in.A, in.B, in.C);
      EXPECT_EQ(y.sizes(), in.u.sizes());
      EXPECT_EQ(y.scalar_type(), dt);
      EXPECT_LE(rel_err(y, ref::selective_scan(in.u, in.delta, in.A, in.B, in.C)), dt == at::kDouble ? 1e-12 : 1e-5)
          << "T=" << s.T << " D=" << s.D << " N=" << s.N;
    }
  }
}

TEST(SelectiveScan, GradientsMatchNaiveLoop) {
  at::manual_seed(12);
  const char* names[] = {"u", "delta", "A", "B", "C"};
  for (auto dt : {at::kDouble, at::kFloat}) {
    for (const Shape& s : kShapes) {
      const ScanInputs in = scan_inputs(s.B, s.T, s.D, s.N, dt, /*grad=*/true);
      const at::Tensor w = at::randn({s.B, s.T, s.D}, at::TensorOptions().dtype(dt));
      const auto fast = grads_of([&] { return (selective_scan(in.u, in.delta, in.A, in.B, in.C) * w).sum(); }, in.all());
      const auto slow = grads_of([&] { return (ref::selective_scan(in.u, in.delta, in.A, in.B, in.C) * w).sum(); }, in.all());
      for (size_t i = 0; i < fast.size(); ++i) {
        EXPECT_EQ(fast[i].scalar_type(), dt);
        EXPECT_LE(rel_err(fast[i], slow[i]), dt == at::kDouble ? 1e-10 : 1e-5)
            << names[i] << " T=" << s.T << " D=" << s.D << " N=" << s.N;
      }
    }
  }
}

// Central differences of a random projection of the output, fp64, every input.
TEST(SelectiveScan, GradientsMatchFiniteDifferences) {
  at::manual_seed(13);
  const ScanInputs in = scan_inputs(2, 5, 3, 2, at::kDouble, /*grad=*/true);
  const at::Tensor w = at::randn({2, 5, 3}, at::kDouble);
  auto loss = [&] { return (selective_scan(in.u, in.delta, in.A, in.B, in.C) * w).sum(); };
  const auto g = grads_of(loss, in.all());
  const double eps = 1e-6;
  torch::NoGradGuard no_grad;
  const auto inputs = in.all();
  for (size_t i = 0; i < inputs.size(); ++i) {
    at::Tensor flat = inputs[i].view({-1});
    const at::Tensor gflat = g[i].reshape({-1});
    for (int64_t k = 0; k < flat.numel(); ++k) {
      const double x0 = flat[k].item<double>();
      flat[k] = x0 + eps;
      const double up = loss().item<double>();
      flat[k] = x0 - eps;
      const double down = loss().item<double>();
      flat[k] = x0;
      EXPECT_NEAR(gflat[k].item<double>(), (up - down) / (2 * eps), 1e-7 * (1.0 + std::abs(gflat[k].item<double>())))
          << "input " << i << " element " << k;
    }
  }
}

// Prefill then per-token steps reproduce the scan of the whole sequence, and the state after
// a prefix is what the recurrence gives.
TEST(SelectiveScan, StateAndStepsFollowTheScan) {
  at::manual_seed(14);
  torch::NoGradGuard no_grad;
  const ScanInputs in = scan_inputs(2, 40, 19, 6, at::kDouble);
  const at::Tensor full = selective_scan(in.u, in.delta, in.A, in.B, in.C);  // (2, 40, 19)
  const int64_t P = 23;
  auto head = [&](const at::Tensor& t) { return t.narrow(1, 0, P); };
  SelectiveScanResult pre = selective_scan_with_state(head(in.u), head(in.delta), in.A, head(in.B), head(in.C));
  EXPECT_LE(rel_err(pre.y, full.narrow(1, 0, P)), 1e-14);
  // the rest as one scan from the prefix state
  auto tail = [&](const at::Tensor& t) { return t.narrow(1, P, 40 - P); };
  const SelectiveScanResult rest =
      selective_scan_with_state(tail(in.u), tail(in.delta), in.A, tail(in.B), tail(in.C), pre.h_last);
  EXPECT_LE(rel_err(rest.y, full.narrow(1, P, 40 - P)), 1e-12);
  // and as steps
  at::Tensor h = pre.h_last.clone();
  for (int64_t t = P; t < 40; ++t) {
    const at::Tensor y = selective_scan_step(h, in.u.select(1, t), in.delta.select(1, t), in.A, in.B.select(1, t),
                                             in.C.select(1, t));
    EXPECT_LE(rel_err(y, full.select(1, t)), 1e-12) << "t=" << t;
  }
  EXPECT_LE(rel_err(h, rest.h_last), 1e-12);
}

TEST(SelectiveScan, IsCausal) {
  at::manual_seed(15);
  ScanInputs in = scan_inputs(1, 30, 4, 3, at::kDouble);
  const at::Tensor a = selective_scan(in.u, in.delta, in.A, in.B, in.C);
  in.u.narrow(1, 20, 10).normal_();
  in.B.narrow(1, 20, 10).normal_();
  const at::Tensor b = selective_scan(in.u, in.delta, in.A, in.B, in.C);
  EXPECT_EQ((a.narrow(1, 0, 20) - b.narrow(1, 0, 20)).abs().max().item<double>(), 0.0);
  EXPECT_GT((a.narrow(1, 20, 1) - b.narrow(1, 20, 1)).abs().max().item<double>(), 1e-6);
}

// bf16 inputs are computed in fp32 (the output is fp32) and their gradients come back in bf16.
TEST(SelectiveScan, Bf16InputsComputeInFp32) {
  at::manual_seed(16);
  const ScanInputs in = scan_inputs(2, 33, 9, 4, at::kFloat);
  const at::Tensor ub = in.u.to(at::kBFloat16).requires_grad_(true);
  const at::Tensor y = selective_scan(ub, in.delta, in.A, in.B, in.C);
  EXPECT_EQ(y.scalar_type(), at::kFloat);
  EXPECT_LE(rel_err(y, ref::selective_scan(ub.detach().to(at::kFloat), in.delta, in.A, in.B, in.C)), 1e-5);
  y.sum().backward();
  EXPECT_EQ(ub.grad().scalar_type(), at::kBFloat16);
}

TEST(SelectiveScan, ChecksShapes) {
  const ScanInputs in = scan_inputs(2, 4, 3, 2, at::kFloat);
  EXPECT_THROW(selective_scan(in.u, in.delta.narrow(1, 0, 3), in.A, in.B, in.C), c10::Error);
  EXPECT_THROW(selective_scan(in.u, in.delta, in.A.t(), in.B, in.C), c10::Error);
  EXPECT_THROW(selective_scan(in.u, in.delta, in.A, in.B, in.C.narrow(2, 0, 1)), c10::Error);
}

}  // namespace
}  // namespace pha::kernels
