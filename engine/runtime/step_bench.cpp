#include "runtime/step_bench.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "core/error.h"
#include "data/batch.h"
#include "core/process_stats.h"
#include "runtime/trainer.h"

namespace pha::runtime {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

StepBenchResult bench_steps(const StepBenchSpec& spec) {
  if (spec.phase != "train" && spec.phase != "forward")
    throw core::Error("phase", "must be \"train\" or \"forward\", got \"" + spec.phase + "\"");
  if (spec.seq_len < 2 || spec.batch < 1 || spec.repeats < 1 || spec.warmup < 0)
    throw core::Error("seq_len", "a step benchmark needs T >= 2, B >= 1, repeats >= 1 and warmup >= 0");
  project::TrainingConfig tc;
  tc.batch_size = spec.batch;
  tc.seq_len = spec.seq_len;
  tc.device = spec.device;
  tc.precision = spec.precision;
  Trainer trainer(spec.model, tc, spec.device);
  trainer.set_phase_timing(spec.phase_times);
  StepBenchResult r;
  r.n_params = trainer.num_parameters();
  r.device = trainer.device();
  r.bf16_autocast = trainer.bf16_autocast();
  r.precision = trainer.precision();
  // Uniform random tokens (fixed seed): the timing does not depend on what is learned.
  data::Batch b;
  b.B = spec.batch;
  b.T = spec.seq_len;
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int32_t> tok(0, spec.model.vocab_size - 1);
  for (int i = 0; i < b.B * b.T; ++i) b.inputs.push_back(tok(gen));
  for (int i = 0; i < b.B * b.T; ++i) b.targets.push_back(tok(gen));
  const bool train = spec.phase == "train";
  std::vector<double> fwd, bwd, opt;
  auto step = [&] {
    if (!train) {
      trainer.forward_only(b);
      return TrainStepResult{};
    }
    return trainer.train_step({b}, 1.0);
  };
  for (int i = 0; i < spec.warmup + spec.repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const TrainStepResult s = step();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i < spec.warmup) continue;
    r.step_s.push_back(dt);
    fwd.push_back(s.forward_s);
    bwd.push_back(s.backward_s);
    opt.push_back(s.optimizer_s);
  }
  r.peak_bytes = core::peak_rss_bytes();  // before the traced step: the profiler's own memory is not the model's
  if (!spec.trace.empty()) record_chrome_trace(spec.trace, [&] { step(); });
  r.median_step_s = median_of(r.step_s);
  r.tokens_per_s = static_cast<double>(b.B) * b.T / r.median_step_s;
  r.forward_s = median_of(fwd);
  r.backward_s = median_of(bwd);
  r.optimizer_s = median_of(opt);
  return r;
}

}  // namespace pha::runtime
