// Attention ops: the query-blocked implementation (any block size, with and without GQA, with a
// KV cache offset) vs the full-matrix repeat-KV reference, forward and gradients.
// Tolerances: fp64 1e-10 relative, fp32 1e-5 relative.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include <torch/types.h>

#include "attention/attention.h"
#include "attention/attention_cpu.h"

namespace pha::kernels {
namespace {

double rel_err(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() /
         b.to(at::kDouble).abs().max().item<double>();
}

// (Hq, G, block, backward mode)
class BlockedAttention : public ::testing::TestWithParam<std::tuple<int, int, int, AttentionBackward>> {};

TEST_P(BlockedAttention, ForwardAndGradientsMatchReference) {
  const auto [Hq, G, block, mode] = GetParam();
  at::manual_seed(Hq * 100 + G * 10 + block);
  const auto o = at::TensorOptions().dtype(at::kDouble);
  const int64_t B = 2, T = 37, hd = 8;
  const at::Tensor q = at::randn({B, T, Hq, hd}, o).requires_grad_(true);
  const at::Tensor k = at::randn({B, T, G, hd}, o).requires_grad_(true);
  const at::Tensor v = at::randn({B, T, G, hd}, o).requires_grad_(true);
  const at::Tensor s = at::randn({Hq}, o).add_(2.0).requires_grad_(true);
  const at::Tensor w = at::randn({B, T, Hq, hd}, o);
  const at::Tensor out = cosine_attention(q, k, v, s, 4.6, block, mode);
  (out * w).sum().backward();
  std::vector<at::Tensor> g;
  for (const at::Tensor* t : {&q, &k, &v, &s}) {
    g.push_back(t->grad().clone());
    const_cast<at::Tensor*>(t)->mutable_grad() = at::Tensor();
  }
  const at::Tensor expected = ref::cosine_attention(q, k, v, s, 4.6);
  (expected * w).sum().backward();
  EXPECT_LE(rel_err(out, expected), 1e-10);
  int i = 0;
  for (const at::Tensor* t : {&q, &k, &v, &s}) EXPECT_LE(rel_err(g[i++], t->grad()), 1e-10) << i;
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, BlockedAttention,
    ::testing::Combine(::testing::Values(4), ::testing::Values(4, 2, 1), ::testing::Values(0, 1, 5, 16, 37, 100),
                       ::testing::Values(AttentionBackward::SaveProbabilities, AttentionBackward::Recompute)));

INSTANTIATE_TEST_SUITE_P(
    KernelsOddGroups, BlockedAttention,
    ::testing::Values(std::make_tuple(6, 3, 16, AttentionBackward::Recompute),
                      std::make_tuple(6, 3, 7, AttentionBackward::Auto),
                      std::make_tuple(8, 2, 37, AttentionBackward::Auto)));

// The CPU kernel (per-head GEMMs on strided views, in-place causal softmax, recompute):
// (Hq, G, block) against the reference, fp64, forward and gradients, with the cosine front end.
class CpuAttention : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(CpuAttention, ForwardAndGradientsMatchReference) {
  const auto [Hq, G, block] = GetParam();
  at::manual_seed(Hq * 100 + G * 10 + block + 1);
  const auto o = at::TensorOptions().dtype(at::kDouble);
  const int64_t B = 2, T = 37, hd = 8;
  // q, k, v as strided views of one fused projection, as the attention branch produces them
  const at::Tensor qkv = at::randn({B, T, Hq + 2 * G, hd}, o).requires_grad_(true);
  const auto parts = qkv.split_with_sizes({Hq, G, G}, 2);
  const at::Tensor w = at::randn({B, T, Hq, hd}, o);
  (cpu_causal_attention(parts[0], parts[1], parts[2], block) * w).sum().backward();
  const at::Tensor g = qkv.grad().clone();
  qkv.mutable_grad() = at::Tensor();
  const at::Tensor out = cpu_causal_attention(parts[0], parts[1], parts[2], block);
  const at::Tensor expected = ref::causal_attention(parts[0], parts[1], parts[2]);
  (expected * w).sum().backward();
  EXPECT_LE(rel_err(out, expected), 1e-10);
  EXPECT_LE(rel_err(g, qkv.grad()), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Kernels, CpuAttention,
                         ::testing::Combine(::testing::Values(4, 6), ::testing::Values(2, 1),
                                            ::testing::Values(0, 1, 5, 16, 37, 100)));

TEST(CpuAttention, KvOffsetAndFp32) {
  at::manual_seed(9);
  const auto o = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor q = at::randn({2, 20, 4, 8}, o), k = at::randn({2, 20, 2, 8}, o), v = at::randn({2, 20, 2, 8}, o);
  at::Tensor qq = q.narrow(1, 14, 6).clone().requires_grad_(true);  // 6 new queries after a 14-token cache
  at::Tensor kk = k.clone().requires_grad_(true), vv = v.clone().requires_grad_(true);
  const at::Tensor out = cpu_causal_attention(qq, kk, vv, /*block=*/4);
  out.pow(2).sum().backward();
  const at::Tensor gq = qq.grad().clone(), gk = kk.grad().clone(), gv = vv.grad().clone();
  for (at::Tensor* t : {&qq, &kk, &vv}) t->mutable_grad() = at::Tensor();
  const at::Tensor expected = ref::causal_attention(qq, kk, vv);
  expected.pow(2).sum().backward();
  EXPECT_LE(rel_err(out, expected), 1e-12);
  EXPECT_LE(rel_err(gq, qq.grad()), 1e-10);
  EXPECT_LE(rel_err(gk, kk.grad()), 1e-10);
  EXPECT_LE(rel_err(gv, vv.grad()), 1e-10);
  const at::Tensor qf = at::randn({2, 300, 4, 16}), kf = at::randn({2, 300, 2, 16}), vf = at::randn({2, 300, 2, 16});
  for (int64_t block : {0, 64, 300}) {
    EXPECT_LE(rel_err(cpu_causal_attention(qf, kf, vf, block), ref::causal_attention(qf, kf, vf)), 1e-5) << block;
  }
  // Large logits: the per-row max keeps the softmax finite.
  const at::Tensor big = cpu_causal_attention(qf * 30, kf * 30, vf);
  EXPECT_TRUE(big.isfinite().all().item<bool>());
  EXPECT_LE(rel_err(big, ref::causal_attention(qf * 30, kf * 30, vf)), 1e-4);
  // The dispatcher sends CPU fp32/fp64 with mode Auto here.
  EXPECT_LE(rel_err(causal_attention(qf, kf, vf), cpu_causal_attention(qf, kf, vf)), 1e-7);
}

// The kernel spreads (batch, kv head) tasks over workers (its own threads on the small-machine
// policy): outputs and every gradient must be bitwise the same for 1, 2 and 3 workers, and
// match the reference, including GQA groups whose dk/dv collect several query heads.
TEST(CpuAttention, ResultsDoNotDependOnTheWorkerCount) {
  at::manual_seed(21);
  const at::Tensor q0 = at::randn({3, 70, 6, 16}), k0 = at::randn({3, 70, 2, 16}), v0 = at::randn({3, 70, 2, 16});
  const at::Tensor w = at::randn({3, 70, 6, 16});
  std::vector<std::vector<at::Tensor>> runs;
  for (int workers : {1, 2, 3}) {
    at::Tensor q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true), v = v0.clone().requires_grad_(true);
    const at::Tensor out = cpu_causal_attention(q, k, v, /*block=*/32, workers);
    (out * w).sum().backward();
    runs.push_back({out.detach(), q.grad(), k.grad(), v.grad()});
  }
  for (size_t r = 1; r < runs.size(); ++r)
    for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(at::equal(runs[0][i], runs[r][i])) << "workers run " << r << " tensor " << i;
  at::Tensor q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true), v = v0.clone().requires_grad_(true);
  const at::Tensor expected = ref::causal_attention(q, k, v);
  (expected * w).sum().backward();
  EXPECT_LE(rel_err(runs[1][0], expected), 1e-5);
  EXPECT_LE(rel_err(runs[1][1], q.grad()), 1e-4);
  EXPECT_LE(rel_err(runs[1][2], k.grad()), 1e-4);
  EXPECT_LE(rel_err(runs[1][3], v.grad()), 1e-4);
  EXPECT_THROW(cpu_causal_attention(q0, k0, v0, 0, -1), c10::Error);
}

TEST(CpuAttention, QueryBlockKeepsScratchWithinBudget) {
  const int64_t block = cpu_attention_query_block(8192, 8192, 4);
  EXPECT_LE(block * 8192 * 4, kCpuScoreBudgetBytes);
  EXPECT_GE(block, kCpuMinQueryBlock);
  EXPECT_EQ(cpu_attention_query_block(10, 10, 4), 10);
  EXPECT_EQ(cpu_attention_query_block(512, 512, 4), kCpuMaxQueryBlock);
}

TEST(CausalAttention, Fp32MatchesReference) {
  at::manual_seed(7);
  const at::Tensor q = at::randn({2, 300, 4, 16}), k = at::randn({2, 300, 2, 16}), v = at::randn({2, 300, 2, 16});
  for (int64_t block : {0, 64, 300}) {
    for (auto mode : {AttentionBackward::SaveProbabilities, AttentionBackward::Recompute}) {
      EXPECT_LE(rel_err(causal_attention(q, k, v, block, mode), ref::causal_attention(q, k, v)), 1e-5) << block;
    }
  }
}

TEST(CausalAttention, KvOffsetQueriesSeeThePrefix) {
  at::manual_seed(8);
  const auto o = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor q = at::randn({1, 20, 4, 8}, o), k = at::randn({1, 20, 2, 8}, o), v = at::randn({1, 20, 2, 8}, o);
  const at::Tensor full = causal_attention(q, k, v);
  // The last 6 queries against all 20 keys (decoding with a 14-token cache, 6 new tokens).
  const at::Tensor tail = causal_attention(q.narrow(1, 14, 6), k, v, /*block=*/4);
  EXPECT_LE(rel_err(tail, full.narrow(1, 14, 6)), 1e-12);
  // Gradients with an offset, both backward modes, against the reference.
  for (auto mode : {AttentionBackward::SaveProbabilities, AttentionBackward::Recompute}) {
    at::Tensor qq = q.narrow(1, 14, 6).clone().requires_grad_(true);
    at::Tensor kk = k.clone().requires_grad_(true);
    causal_attention(qq, kk, v, /*block=*/4, mode).pow(2).sum().backward();
    const at::Tensor gq = qq.grad().clone(), gk = kk.grad().clone();
    qq.mutable_grad() = at::Tensor();
    kk.mutable_grad() = at::Tensor();
    ref::causal_attention(qq, kk, v).pow(2).sum().backward();
    EXPECT_LE(rel_err(gq, qq.grad()), 1e-10);
    EXPECT_LE(rel_err(gk, kk.grad()), 1e-10);
  }
  EXPECT_LE(rel_err(tail, ref::causal_attention(q.narrow(1, 14, 6), k, v)), 1e-12);
}

TEST(CausalAttention, BlockSizeKeepsScoresWithinBudget) {
  const int64_t block = attention_query_block(1, 4, 8192, 8192, 4);
  EXPECT_LT(block, 8192);
  EXPECT_LE(block * 4 * 8192 * 4, kAttentionBlockBudgetBytes);
  EXPECT_EQ(attention_query_block(1, 1, 10, 10, 4), 10);
}

TEST(CausalAttention, ChecksShapes) {
  const at::Tensor q = at::randn({1, 4, 4, 8});
  EXPECT_THROW(causal_attention(q, at::randn({1, 4, 3, 8}), at::randn({1, 4, 3, 8})), c10::Error);
  EXPECT_THROW(causal_attention(q, at::randn({1, 4, 2, 8}), at::randn({1, 4, 2, 7})), c10::Error);
  EXPECT_THROW(causal_attention(q, at::randn({1, 3, 2, 8}), at::randn({1, 3, 2, 8})), c10::Error);
  EXPECT_THROW(cosine_attention(q, at::randn({1, 4, 2, 8}), at::randn({1, 4, 2, 8}), at::zeros({3}), 4.6),
               c10::Error);
}

}  // namespace
}  // namespace pha::kernels
