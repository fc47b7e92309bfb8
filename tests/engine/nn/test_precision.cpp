// Mixed precision (training.precision bf16): every branch, a full block and the whole model in
// bf16 stay within bf16 tolerance (2e-2 relative, see expect_bf16_close) of fp32 and really differ from it; every
// variant runs forward, backward and decoding in bf16 with no dtype mismatch; master weights,
// gradients and AdamW state stay fp32; 100 training steps of pha-tiny, sequential-tiny and
// transformer-tiny (B 4, T 64) in bf16 end within 2% of the fp32 run's loss; auto resolves by the hardware.
// The same tests run on the GPU as test_precision_cuda (label cuda).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "core/error.h"
#include "nn/pha_model.h"
#include "nn/precision.h"
#include "nn/safetensors.h"
#include "model/presets.h"
#include "precision_test.h"
#include "runtime/trainer.h"
#include "test_model_util.h"

namespace pha::nn {
namespace {

using testing::rel_err;
using testing::test_device;

at::TensorOptions dev() { return at::TensorOptions().device(at::Device(test_device())); }

// Relative error of a bf16 result against fp32 must be within bf16 tolerance, and above what
// fp32 rounding alone would give (the computation really ran in bf16). The tolerance: bf16
// rounds to 2^-9 (0.2%) relative, and a branch rounds 6 to 8 times in a row (input, weights,
// each GEMM's output, the gelu, the gating product). Over 60 random initialisations (CPU,
// AVX512-BF16) the largest errors were 0.0092 (gss), 0.0099 (attention), 0.0061 (ffn), and a
// tail case of 0.0143 (gss) was seen, so 1e-2 sat on the tail and 2e-2 does not. A wrong
// computation in bf16 (a missing op, a wrong cast) gives errors of order 1.
void expect_bf16_close(const at::Tensor& bf16, const at::Tensor& fp32, const std::string& what) {
  const double e = rel_err(bf16.to(at::kCPU), fp32.to(at::kCPU));
  EXPECT_LE(e, 2e-2) << what;
  EXPECT_GT(e, 1e-5) << what << ": no difference from fp32, so bf16 did not run";
}

model::ModelConfig branch_config() {
  model::ModelConfig cfg = testing::tiny_config("pha", 64, 2, 97);
  cfg.gss.reduced = 32;
  return cfg;
}

// A branch fed bf16 returns bf16 within bf16 tolerance of its fp32 output. The seed is set
// before the branch is built: Debian's LibTorch seeds its default generator randomly per
// process, so weights built before at::manual_seed differ from run to run.
template <typename Branch>
void expect_branch_bf16(const std::string& what, uint64_t seed) {
  at::manual_seed(seed);
  Branch branch(branch_config());
  branch->to(at::Device(test_device()));
  const at::Tensor x = at::randn({2, 48, 64}, dev());
  const at::Tensor y = branch(x.to(at::kBFloat16));
  EXPECT_EQ(y.scalar_type(), at::kBFloat16) << what;
  expect_bf16_close(y, branch(x), what);
}

TEST(Bf16Forward, GssBranchIsWithinToleranceOfFp32) { expect_branch_bf16<nn::GssBranch>("gss", 1); }
TEST(Bf16Forward, AttentionBranchIsWithinToleranceOfFp32) {
  expect_branch_bf16<nn::AttentionBranch>("attention", 2);
}
TEST(Bf16Forward, FfnBranchIsWithinToleranceOfFp32) { expect_branch_bf16<nn::DualFfn>("ffn", 3); }

TEST(Bf16Forward, MixedBlockAndModelAreWithinToleranceOfFp32) {
  at::manual_seed(4);
  nn::PhaModel model(branch_config());
  model->to(at::Device(test_device()));
  const at::Tensor tokens = at::randint(0, 97, {2, 40}, dev().dtype(at::kLong));
  const at::Tensor x = at::randn({2, 40, 64}, dev());
  const nn::Sublayer& sub = model->blocks()[0]->sublayers()[0];
  const at::Tensor block32 = sub.ptr()->forward(x), logits32 = model(tokens);
  model->set_compute_dtype(at::kBFloat16);
  const at::Tensor block16 = sub.ptr()->forward(x);
  EXPECT_EQ(block16.scalar_type(), at::kFloat);  // the residual stream stays fp32
  expect_bf16_close(block16, block32, "block");
  const at::Tensor logits16 = model(tokens);
  EXPECT_EQ(logits16.scalar_type(), at::kFloat);  // logits leave the model in fp32
  expect_bf16_close(logits16, logits32, "logits");
}

class Bf16Variants : public ::testing::TestWithParam<std::string> {};

// Forward, backward and decoding in bf16 for every variant: no dtype error anywhere, fp32
// gradients on fp32 parameters, decoding equal to the forward within bf16 tolerance.
TEST_P(Bf16Variants, TrainAndDecodeWithoutDtypeMismatch) {
  at::manual_seed(5);
  nn::PhaModel model(testing::tiny_config(GetParam()));
  model->to(at::Device(test_device()));
  model->set_compute_dtype(at::kBFloat16);
  const at::Tensor tokens = at::randint(0, 37, {2, 12}, dev().dtype(at::kLong));
  const at::Tensor logits = model(tokens);
  at::cross_entropy_loss(logits.reshape({-1, 37}), tokens.reshape({-1})).backward();
  for (const auto& p : model->named_parameters()) {
    EXPECT_EQ(p.value().scalar_type(), at::kFloat) << p.key();
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_EQ(p.value().grad().scalar_type(), at::kFloat) << p.key();
    EXPECT_TRUE(p.value().grad().isfinite().all().item<bool>()) << p.key();
  }
  torch::NoGradGuard no_grad;
  nn::DecodeState state = model->new_state(2);
  std::vector<at::Tensor> steps = {model->prefill(tokens.narrow(1, 0, 5), state)};
  for (int64_t t = 5; t < 12; ++t) steps.push_back(model->step(tokens.select(1, t), state).unsqueeze(1));
  EXPECT_LE(rel_err(at::cat(steps, 1).to(at::kCPU), logits.detach().to(at::kCPU)), 3e-2);
}

INSTANTIATE_TEST_SUITE_P(Precision, Bf16Variants, ::testing::ValuesIn(testing::all_variants()),
                         [](const auto& info) { return testing::param_name(info.param); });

// A learnable byte stream: words of a small vocabulary in a fixed pseudo-random order.
std::vector<int32_t> corpus() {
  const char* words[] = {"the ", "model ", "mixes ", "three ", "branches ", "state ", "space ", "and ", "a ", "net. "};
  std::vector<int32_t> out;
  uint64_t x = 99;
  while (out.size() < 20000) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    for (const char* c = words[(x >> 33) % 10]; *c; ++c) out.push_back(static_cast<unsigned char>(*c));
  }
  return out;
}

data::Batch window_batch(const std::vector<int32_t>& text, int B, int T, std::mt19937& gen) {
  data::Batch b;
  b.B = B;
  b.T = T;
  std::uniform_int_distribution<size_t> start(0, text.size() - T - 2);
  for (int i = 0; i < B; ++i) {
    const size_t s = start(gen);
    b.inputs.insert(b.inputs.end(), text.begin() + s, text.begin() + s + T);
    b.targets.insert(b.targets.end(), text.begin() + s + 1, text.begin() + s + T + 1);
  }
  return b;
}

// Mean loss of the last 10 of 100 steps (B 4, T 64, lr 1e-3, the same batches in both precisions). At
// T 32 the runs end nearer the data's entropy floor, where the two trajectories differ by up to
// 1.7% (sequential-tiny); at T 64 by at most 0.6%.
double final_loss(const std::string& preset_name, const std::string& precision, double* first) {
  project::TrainingConfig tc;
  tc.steps = 100;
  tc.warmup_steps = 10;
  // lr 1e-3: at 3e-3 the 6-layer transformer-tiny (equal budget, step-7 init) is near the data's
  // entropy floor by step 80, where two trajectories wander apart whatever the precision: fp32
  // ended at 0.920 and bf16 at 0.856 (bf16 lower, 7% apart; pha-tiny and sequential-tiny stayed
  // within 2%). At 1e-3 all three are still learning at step 100 and the comparison measures
  // the precision, not the chaos near the floor.
  tc.lr = 1e-3;
  tc.mixer_lr = 1e-2;
  tc.batch_size = 4;
  tc.seq_len = 64;
  tc.precision = precision;
  runtime::Trainer trainer(model::preset(preset_name), tc, test_device());
  EXPECT_EQ(trainer.precision().precision, precision);
  const std::vector<int32_t> text = corpus();
  std::mt19937 gen(7);
  std::vector<double> losses;
  for (int64_t step = 1; step <= tc.steps; ++step) {
    const auto r = trainer.train_step({window_batch(text, tc.batch_size, tc.seq_len, gen)}, runtime::lr_factor(tc, step));
    EXPECT_TRUE(r.finite) << precision << " step " << step;
    losses.push_back(r.loss);
  }
  *first = losses.front();
  return std::accumulate(losses.end() - 10, losses.end(), 0.0) / 10.0;
}

class Bf16Training : public ::testing::TestWithParam<std::string> {};

TEST_P(Bf16Training, HundredStepsEndWithinTwoPercentOfFp32) {
  double first32 = 0, first16 = 0;
  const double l32 = final_loss(GetParam(), "fp32", &first32);
  const double l16 = final_loss(GetParam(), "bf16", &first16);
  EXPECT_LT(l32, 0.7 * first32) << "fp32 did not learn, so the comparison would say nothing";
  EXPECT_LE(std::abs(l16 - l32) / l32, 0.02) << "fp32 " << l32 << ", bf16 " << l16;
  RecordProperty("fp32_loss", std::to_string(l32));
  RecordProperty("bf16_loss", std::to_string(l16));
}

INSTANTIATE_TEST_SUITE_P(Precision, Bf16Training,
                         ::testing::Values("pha-tiny", "sequential-tiny", "transformer-tiny"),
                         [](const auto& info) { return testing::param_name(info.param); });

TEST(PrecisionChoice, AutoFollowsAFixedRuleAndExplicitSettingsWin) {
  const nn::PrecisionChoice a = nn::resolve_precision("auto", test_device());
  if (test_device() == "cpu") {  // a fixed rule: fp32, whatever the CPU has and whatever it measures
    EXPECT_FALSE(a.bf16()) << a.text();
    EXPECT_NE(a.reason.find("fixed rule"), std::string::npos) << a.reason;
    EXPECT_EQ(a.reason.find("GFLOP/s"), std::string::npos) << "auto quoted a measurement: " << a.reason;
    if (!nn::cpu_bf16_flags().empty()) { EXPECT_NE(a.reason.find("training.precision \"bf16\""), std::string::npos) << a.reason; }
  } else {
    EXPECT_NE(a.reason.find("auto: "), std::string::npos) << a.reason;
  }
  EXPECT_EQ(nn::resolve_precision("fp32", test_device()).precision, "fp32");
  EXPECT_EQ(nn::resolve_precision("bf16", test_device()).precision, "bf16");
  try {
    nn::resolve_precision("fp16", test_device());
    FAIL() << "no error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where(), "training.precision");
  }
}

// The speed-up `pha info --calibrate` reports: paired rounds, their median ratio and range.
TEST(PrecisionChoice, Bf16SpeedupIsTheMedianOfPairedRounds) {
  if (test_device() != "cpu") GTEST_SKIP() << "a CPU measurement";
  const nn::Bf16Speedup b = nn::measure_bf16_speedup(5, 256);
  EXPECT_EQ(b.rounds, 5);
  EXPECT_GT(b.fp32_gflops, 0.0);
  EXPECT_GT(b.bf16_gflops, 0.0);
  EXPECT_LE(b.low, b.median);
  EXPECT_LE(b.median, b.high);
  EXPECT_GE(b.others_busy_cores, 0.0);
  EXPECT_NE(b.text().find("median of 5 interleaved rounds"), std::string::npos) << b.text();
}

TEST(PrecisionChoice, TrainerKeepsFp32MastersAndOptimizerState) {
  project::TrainingConfig tc;
  tc.steps = 2;
  tc.warmup_steps = 0;
  tc.batch_size = 2;
  tc.seq_len = 16;
  tc.precision = "bf16";
  runtime::Trainer trainer(model::preset("pha-tiny"), tc, test_device());
  EXPECT_TRUE(trainer.precision().bf16());
  std::mt19937 gen(3);
  const std::vector<int32_t> text = corpus();
  EXPECT_TRUE(trainer.train_step({window_batch(text, 2, 16, gen)}, 1.0).finite);
  const std::string path = ::testing::TempDir() + "pha-precision-test.ckpt";
  trainer.save_checkpoint(path, 1, nlohmann::json::object());
  const nn::SafetensorsHeader h = nn::read_safetensors_header(path);
  int moments = 0;
  for (const auto& e : h.entries) {
    if (e.name.find(".step") != std::string::npos || e.name.find("rng") != std::string::npos) continue;
    EXPECT_EQ(e.dtype, "F32") << e.name;  // weights and AdamW moments in fp32
    moments += e.name.find(".exp_avg") != std::string::npos;
  }
  EXPECT_GT(moments, 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pha::nn
