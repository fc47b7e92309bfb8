// By-hand benchmark (not a ctest test): training steps through runtime::Trainer in several
// precisions, interleaved step by step in one process so that the ratios hold on a noisy
// machine, plus the fp32 and bf16 GEMM rates measured in the same process.
//   bench_precision [--preset pha-d512] [-T 512] [-B 8] [--steps 5] [--warmup 2] [--precisions fp32,bf16]
//                   [--threads N] [--trace FILE]   (chrome://tracing file of one more step of the last precision)
// Reports the median wall time per step and the median process CPU time per step (user + system,
// all threads): on a shared machine the CPU time of a --threads 1 run moves much less than the
// wall time.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <torch/csrc/autograd/profiler_legacy.h>

#include "core/allocator.h"
#include "core/blas_core.h"
#include "device/system_info.h"
#include "nn/precision.h"
#include "model/presets.h"
#include "runtime/trainer.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  pha::core::apply_blas_core_policy_at_startup(argv);
  pha::core::apply_allocator_policy_at_startup();
  std::string preset = "pha-d512", precisions = "fp32,bf16", trace;
  int T = 512, B = 8, steps = 5, warmup = 2, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--preset") preset = v;
    else if (a == "-T") T = std::atoi(v.c_str());
    else if (a == "-B") B = std::atoi(v.c_str());
    else if (a == "--steps") steps = std::atoi(v.c_str());
    else if (a == "--warmup") warmup = std::atoi(v.c_str());
    else if (a == "--precisions") precisions = v;
    else if (a == "--trace") trace = v;
    else if (a == "--threads") threads = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  pha::device::configure_threads(threads);
  std::printf("%s\n%s\nBLAS kernels: %s\n", pha::device::thread_policy_text().c_str(), pha::core::allocator_policy_text().c_str(),
              pha::core::blas_core_policy_text().c_str());
  std::printf("GEMM 2048: fp32 %.1f GFLOP/s, bf16 %.1f GFLOP/s\n", pha::nn::measure_gemm_gflops_as("fp32"),
              pha::nn::measure_gemm_gflops_as("bf16"));
  const pha::model::ModelConfig mc = pha::model::preset(preset);
  std::vector<std::string> names;
  std::stringstream ss(precisions);
  for (std::string p; std::getline(ss, p, ',');) names.push_back(p);
  std::vector<std::unique_ptr<pha::runtime::Trainer>> trainers;
  for (const auto& p : names) {
    pha::project::TrainingConfig tc;
    tc.batch_size = B;
    tc.seq_len = T;
    tc.precision = p;
    trainers.push_back(std::make_unique<pha::runtime::Trainer>(mc, tc, "cpu"));
    std::printf("%s: %s\n", p.c_str(), trainers.back()->precision().text().c_str());
  }
  pha::data::Batch b;
  b.B = B;
  b.T = T;
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int32_t> tok(0, mc.vocab_size - 1);
  for (int i = 0; i < B * T; ++i) b.inputs.push_back(tok(gen));
  for (int i = 0; i < B * T; ++i) b.targets.push_back(tok(gen));
  std::vector<std::vector<double>> times(trainers.size()), cpu(trainers.size());
  std::vector<double> losses(trainers.size());
  for (int i = 0; i < warmup + steps; ++i) {
    for (size_t k = 0; k < trainers.size(); ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = cpu_seconds();
      losses[k] = trainers[k]->train_step({b}, 1.0).loss;
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (i >= warmup) {
        times[k].push_back(dt);
        cpu[k].push_back(cpu_seconds() - c0);
      }
    }
  }
  if (!trace.empty()) {
    torch::autograd::profiler::RecordProfile guard(trace);
    trainers.back()->train_step({b}, 1.0);
  }
  std::printf("%s T=%d B=%d, median of %d interleaved steps after %d warm-up\n", preset.c_str(), T, B, steps, warmup);
  for (size_t k = 0; k < trainers.size(); ++k) {
    const double s = median(times[k]), c = median(cpu[k]);
    std::printf("  %-5s step %8.1f ms  %9.0f tokens/s  x%.2f vs %s | CPU %8.1f ms/step  x%.2f  (last loss %.4f)\n",
                names[k].c_str(), s * 1e3, B * T / s, median(times[0]) / s, names[0].c_str(), c * 1e3,
                median(cpu[0]) / c, losses[k]);
  }
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  std::printf("peak RSS of the process (all trainers together): %.0f MB\n", u.ru_maxrss / 1024.0);
  return 0;
}
