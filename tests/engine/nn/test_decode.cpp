// Incremental decoding (GSS recurrence + KV cache) equals the full forward for every variant;
// sampling honours temperature, top-k, top-p and the seed.
#include <gtest/gtest.h>

#include <set>

#include <torch/types.h>

#include "core/error.h"
#include "model/flops.h"
#include "nn/generate.h"
#include "nn/pha_model.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

class DecodeEveryVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(DecodeEveryVariant, StepsEqualFullForward) {
  torch::NoGradGuard no_grad;
  at::manual_seed(50);
  nn::PhaModel model(testing::tiny_config(GetParam()));
  model->to(at::kDouble);
  const at::Tensor tokens = at::randint(0, 37, {2, 20}, at::kLong);
  const at::Tensor full = model(tokens);  // (2, 20, 37)

  nn::DecodeState state = model->new_state(2);  // prefill 8, then 12 steps
  std::vector<at::Tensor> out = {model->prefill(tokens.narrow(1, 0, 8), state)};
  for (int64_t t = 8; t < 20; ++t) out.push_back(model->step(tokens.select(1, t), state).unsqueeze(1));
  EXPECT_EQ(state.position, 20);
  EXPECT_LE(testing::rel_err(at::cat(out, 1), full), 1e-10);

  nn::DecodeState fresh = model->new_state(2);  // token by token from an empty state
  std::vector<at::Tensor> steps;
  for (int64_t t = 0; t < 20; ++t) steps.push_back(model->step(tokens.select(1, t), fresh).unsqueeze(1));
  EXPECT_LE(testing::rel_err(at::cat(steps, 1), full), 1e-10);
}

// The bytes `pha bench inference` reports: the decode state's tensors, reserved for prompt +
// generation, hold exactly model::decode_memory's KV cache and GSS state, and the reserved cache
// decodes bit for bit like the one that grows by doubling.
TEST_P(DecodeEveryVariant, StateBytesEqualFormula) {
  torch::NoGradGuard no_grad;
  at::manual_seed(52);
  const model::ModelConfig cfg = testing::tiny_config(GetParam());
  nn::PhaModel model(cfg);
  const at::Tensor tokens = at::randint(0, 37, {3, 40}, at::kLong);
  nn::DecodeState reserved = model->new_state(3, 40);
  nn::DecodeState grown = model->new_state(3);
  at::Tensor a = model->prefill(tokens.narrow(1, 0, 9), reserved, /*last_only=*/true);
  at::Tensor b = model->prefill(tokens.narrow(1, 0, 9), grown);
  // last_only is the last position's logits (the head's GEMM on one row rounds like that on
  // nine only up to fp32 precision).
  EXPECT_LE(testing::rel_err(a.select(1, 0), b.select(1, 8)), 1e-6);
  for (int64_t t = 9; t < 40; ++t) {
    a = model->step(tokens.select(1, t), reserved);
    b = model->step(tokens.select(1, t), grown);
  }
  EXPECT_TRUE(a.equal(b));
  const model::DecodeMemory f = model::decode_memory(cfg, 3, 40, 4);
  EXPECT_EQ(reserved.kv_cache_bytes(), f.kv_bytes);
  EXPECT_EQ(reserved.gss_state_bytes(), f.gss_state_bytes);
  EXPECT_EQ(grown.gss_state_bytes(), f.gss_state_bytes);
  // Growing by doubling from 16 tokens: 9 -> 16, 32, 64 slots for 40 tokens.
  EXPECT_EQ(grown.kv_cache_bytes(), model::decode_memory(cfg, 3, 64, 4).kv_bytes);
  // The formula counts what the model has: a model with no attention keeps no cache, one with
  // no GSS no state, and the counts follow the config.
  int attn = 0, gss = 0;
  for (const auto& layer : cfg.layers)
    for (const auto& sub : layer.sublayers)
      for (model::Branch br : sub.branches) attn += br == model::Branch::Attention, gss += br == model::Branch::Gss;
  EXPECT_EQ(f.attention_layers, attn);
  EXPECT_EQ(f.gss_layers, gss);
  EXPECT_EQ(f.kv_bytes, 2LL * attn * 2 /*G*/ * 8 /*head dim*/ * 40 * 3 * 4);
  const int64_t per_sequence = cfg.selective_ssm() ? 1LL * cfg.selective_inner() * (16 /*N*/ + 3 /*conv - 1*/)
                                                   : 1LL * cfg.gss.reduced * 16 /*N*/ * 2;
  EXPECT_EQ(f.gss_state_bytes, 1LL * gss * 3 * per_sequence * 4);
}

INSTANTIATE_TEST_SUITE_P(Model, DecodeEveryVariant, ::testing::ValuesIn(testing::all_variants()),
                         [](const auto& info) { return testing::param_name(info.param); });

TEST(Decode, Fp32StepsMatchForward) {
  torch::NoGradGuard no_grad;
  at::manual_seed(51);
  nn::PhaModel model(testing::tiny_config("pha"));
  const at::Tensor tokens = at::randint(0, 37, {1, 64}, at::kLong);
  nn::DecodeState state = model->new_state(1);
  std::vector<at::Tensor> steps;
  for (int64_t t = 0; t < 64; ++t) steps.push_back(model->step(tokens.select(1, t), state).unsqueeze(1));
  EXPECT_LE(testing::rel_err(at::cat(steps, 1), model(tokens)), 1e-4);
}

TEST(Decode, PrefillNeedsEmptyStateAndMatchingBatch) {
  nn::PhaModel model(testing::tiny_config("pha"));
  nn::DecodeState s = model->new_state(1);
  model->prefill(at::zeros({1, 3}, at::kLong), s);
  EXPECT_THROW(model->prefill(at::zeros({1, 3}, at::kLong), s), c10::Error);
  s.reset();
  EXPECT_NO_THROW(model->prefill(at::zeros({1, 3}, at::kLong), s));
  EXPECT_THROW(model->step(at::zeros({2}, at::kLong), s), c10::Error);
}

TEST(Sampling, GreedyTopKAndTopP) {
  at::Generator gen = nn::make_sampling_generator(7);
  const at::Tensor logits = at::tensor({0.0f, 3.0f, 1.0f, 2.9f, 5.0f, 0.0f, 0.0f, 0.0f}).view({2, 4});
  nn::SamplingOptions greedy;
  greedy.temperature = 0.0;
  EXPECT_TRUE(nn::sample_next(logits, greedy, gen).equal(at::tensor({1, 0}, at::kLong)));
  nn::SamplingOptions k1;
  k1.top_k = 1;
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(nn::sample_next(logits, k1, gen).equal(at::tensor({1, 0}, at::kLong)));
  nn::SamplingOptions k2;
  k2.top_k = 2;
  k2.temperature = 5.0;  // flat enough that both survivors appear, but never the others
  std::set<int64_t> seen;
  for (int i = 0; i < 200; ++i) seen.insert(nn::sample_next(logits, k2, gen)[0].item<int64_t>());
  EXPECT_EQ(seen, (std::set<int64_t>{1, 3}));
  nn::SamplingOptions p;
  p.top_p = 0.3;  // the top token alone holds ~0.47 of the mass
  for (int i = 0; i < 50; ++i) EXPECT_EQ(nn::sample_next(logits, p, gen)[0].item<int64_t>(), 1);
  nn::SamplingOptions bad;
  bad.top_p = 0.0;
  EXPECT_THROW(nn::sample_next(logits, bad, gen), core::Error);
}

// A model whose V exceeds its tokenizer's (byte presets: 260 for 257 ids) never emits an id the
// tokenizer cannot decode, however likely the model finds it.
TEST(Sampling, VocabLimitNeverDrawsIdsBeyondIt) {
  at::Generator gen = nn::make_sampling_generator(3);
  const at::Tensor logits = at::tensor({0.0f, 1.0f, 0.5f, 9.0f}).view({1, 4});  // id 3 most likely
  nn::SamplingOptions o;
  o.vocab_limit = 3;
  o.temperature = 2.0;
  for (int i = 0; i < 100; ++i) EXPECT_LT(nn::sample_next(logits, o, gen)[0].item<int64_t>(), 3);
  o.temperature = 0.0;
  EXPECT_EQ(nn::sample_next(logits, o, gen)[0].item<int64_t>(), 1);
}

TEST(Generate, SeededAndGreedyAgreeWithForward) {
  at::manual_seed(52);
  nn::PhaModel model(testing::tiny_config("pha"));
  nn::SamplingOptions opts;
  opts.seed = 123;
  opts.top_k = 10;
  const std::vector<int64_t> prompt = {1, 2, 3, 4};
  const auto a = nn::generate(*model, prompt, 12, opts);
  const auto b = nn::generate(*model, prompt, 12, opts);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 12u);
  opts.seed = 124;
  EXPECT_NE(nn::generate(*model, prompt, 12, opts), a);  // 10^-12-ish chance of a false failure

  nn::SamplingOptions greedy;
  greedy.temperature = 0.0;
  const auto g = nn::generate(*model, prompt, 6, greedy);
  std::vector<int64_t> seq = prompt;  // greedy decoding again, with the full forward
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 6; ++i) {
    const at::Tensor logits = model(at::tensor(seq, at::kLong).unsqueeze(0));
    seq.push_back(logits[0][-1].argmax().item<int64_t>());
  }
  EXPECT_EQ(std::vector<int64_t>(seq.begin() + 4, seq.end()), g);
  EXPECT_THROW(nn::generate(*model, {99}, 3, greedy), core::Error);
}

}  // namespace
}  // namespace pha::nn
