// The engine's one training-step benchmark (runtime/step_bench.h), which `pha bench model` and
// the efficiency profiler's workers use: timed steps through Trainer, their median, the phase
// split, peak memory from VmHWM, the chrome trace, and bad specs.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/error.h"
#include "model/model_config.h"
#include "core/process_stats.h"
#include "runtime/step_bench.h"
#include "runtime_test_util.h"

using namespace pha::runtime;

namespace {

StepBenchSpec tiny_spec() {
  StepBenchSpec s;
  nlohmann::json m = pha::test::TempProject::tiny_model();
  m["vocab_size"] = 64;
  s.model = pha::model::model_config_from_json(m);
  s.seq_len = 16;
  s.batch = 2;
  s.warmup = 1;
  s.repeats = 4;
  return s;
}

TEST(StepBench, MedianOfTimedTrainStepsWithTheirPhases) {
  StepBenchSpec spec = tiny_spec();
  spec.phase_times = true;
  spec.precision = "fp32";  // "auto" is bf16 on CPUs with native bf16 (nn/precision.h)
  const StepBenchResult r = bench_steps(spec);
  ASSERT_EQ(r.step_s.size(), 4u) << "the warm-up step is not timed";
  EXPECT_DOUBLE_EQ(r.median_step_s, median_of(r.step_s));
  EXPECT_DOUBLE_EQ(r.tokens_per_s, 2.0 * 16 / r.median_step_s);
  EXPECT_GT(r.forward_s, 0.0);
  EXPECT_GT(r.backward_s, 0.0);
  EXPECT_GT(r.optimizer_s, 0.0);
  // Each phase is a part of a step, so its median is below the slowest step.
  const double slowest = *std::max_element(r.step_s.begin(), r.step_s.end());
  for (double phase : {r.forward_s, r.backward_s, r.optimizer_s}) EXPECT_LE(phase, slowest);
  EXPECT_EQ(r.device, "cpu");
  EXPECT_FALSE(r.bf16_autocast);
  EXPECT_GT(r.n_params, 0);
  EXPECT_GT(r.peak_bytes, 0);
  EXPECT_LE(r.peak_bytes, pha::core::peak_rss_bytes()) << "VmHWM only grows";
}

TEST(StepBench, ForwardPhaseAndTraceFile) {
  pha::test::TempProject p;
  StepBenchSpec spec = tiny_spec();
  spec.phase = "forward";
  spec.trace = (p.dir() / "trace.json").string();
  const StepBenchResult r = bench_steps(spec);
  EXPECT_GT(r.tokens_per_s, 0.0);
  EXPECT_EQ(r.forward_s, 0.0) << "phases are timed for training steps only";
  std::ifstream in(spec.trace);
  ASSERT_TRUE(in) << "no trace written";
  // Chrome's trace-event array: one {"name", "ph", "ts", "dur", ...} per operator run.
  const nlohmann::json events = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(events.is_array()) << "not a chrome trace";
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events[0].contains("name") && events[0].contains("ph"));
}

TEST(StepBench, MedianAndBadSpecs) {
  EXPECT_DOUBLE_EQ(median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median_of({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({}), 0.0);
  StepBenchSpec spec = tiny_spec();
  spec.phase = "backward";
  EXPECT_THROW(bench_steps(spec), pha::core::Error);
  spec = tiny_spec();
  spec.repeats = 0;
  EXPECT_THROW(bench_steps(spec), pha::core::Error);
}

}  // namespace
