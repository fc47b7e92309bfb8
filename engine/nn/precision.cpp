// Precision resolution (precision.h): the fixed rule of auto, hardware checks, the per-dtype
// GEMM rate and the interleaved bf16 speed-up measurement.
#include "nn/precision.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include <ATen/ATen.h>
#include <torch/cuda.h>
#ifdef PHA_TORCH_HAS_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include "core/error.h"

namespace pha::nn {
namespace {

// Compute capability major of CUDA device 0, 0 when unknown (a CPU-only LibTorch).
int cuda_major() {
#ifdef PHA_TORCH_HAS_CUDA
  if (torch::cuda::is_available()) return at::cuda::getDeviceProperties(0)->major;
#endif
  return 0;
}

}  // namespace

std::string PrecisionChoice::text() const {
  return (bf16() ? "bf16 mixed precision (" : "fp32 (") + reason + ")";
}

std::string cpu_bf16_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::string w, found;
    while (words >> w)
      if (w == "avx512_bf16" || w == "amx_bf16") found += (found.empty() ? "" : " ") + w;
    return found;  // the first CPU's flags stand for all
  }
  return "";
}

PrecisionChoice resolve_precision(const std::string& setting, const std::string& device) {
  if (setting != "auto" && setting != "fp32" && setting != "bf16")
    throw core::Error("training.precision", "must be auto, fp32 or bf16, got \"" + setting + "\"");
  PrecisionChoice c;
  c.setting = setting;
  const bool cuda = device.rfind("cuda", 0) == 0;
  bool native = false;
  std::string why;
  if (cuda) {
    const int major = cuda_major();
    native = major >= 8;
    why = major > 0 ? "the GPU has compute capability " + std::to_string(major) + ".x" +
                          (native ? "" : " (native bf16 needs 8.0+)")
                    : "the GPU's compute capability is unknown";
  } else {
    const std::string flags = cpu_bf16_flags();
    native = !flags.empty();
    if (setting == "auto") {
      // A fixed rule: nothing measured, so no load, host or moment can change a run's numbers.
      c.precision = "fp32";
      c.reason = "auto on a CPU is always fp32, a fixed rule (numerics never follow a measurement or the machine's "
                 "load; docs/model.md \"Precision\")" +
                 std::string(native ? "; this CPU has native bf16 (" + flags +
                                          "): ask for training.precision \"bf16\" to use it (pha info --calibrate "
                                          "measures what it gains here)"
                                    : "");
      return c;
    }
    why = native ? "this CPU has native bf16 (" + flags + ")" : "this CPU has no native bf16 (no avx512_bf16 / amx_bf16)";
  }
  if (setting == "auto") {
    c.precision = native ? "bf16" : "fp32";
    c.reason = "auto: " + why;
  } else {
    c.precision = setting;
    c.reason = "training.precision " + setting + (setting == "bf16" && !native ? "; " + why + ", slower than fp32" : "");
  }
  return c;
}

namespace {

// Jiffies the whole machine spent busy (everything but idle and iowait) since boot.
double machine_busy_jiffies() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  double v[10] = {0};
  for (double& x : v) in >> x;
  double busy = 0.0;
  for (int i = 0; i < 8; ++i)
    if (i != 3 && i != 4) busy += v[i];  // user nice system [idle iowait] irq softirq steal
  return busy;
}

// Jiffies this process (every thread) has used: utime + stime of /proc/self/stat.
double self_jiffies() {
  std::ifstream in("/proc/self/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = all.rfind(')');
  if (close == std::string::npos) return 0.0;
  std::istringstream rest(all.substr(close + 2));
  std::string field;
  double utime = 0.0, stime = 0.0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::atof(field.c_str());
    if (i == 15) stime = std::atof(field.c_str());
  }
  return utime + stime;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string Bf16Speedup::text() const {
  return fmt::format("bf16 GEMMs {:.2f}x fp32 (median of {} interleaved rounds, range {:.2f}-{:.2f}; fp32 {:.0f}, bf16 "
                     "{:.0f} GFLOP/s; other processes used {:.1f} cores meanwhile)",
                     median, rounds, low, high, fp32_gflops, bf16_gflops, others_busy_cores);
}

Bf16Speedup measure_bf16_speedup(int rounds, int n, const std::string& device) {
  const bool gpu = device != "cpu";
  const at::Device dev(device);
  const at::Tensor a32 = at::randn({n, n}).to(dev), b32 = at::randn({n, n}).to(dev);  // (n, n)
  const at::Tensor a16 = a32.to(at::kBFloat16), b16 = b32.to(at::kBFloat16);
  at::Tensor c32 = at::mm(a32, b32), c16 = at::mm(a16, b16);  // warm-up: the libraries pick their kernels
  const double flop = 2.0 * n * static_cast<double>(n) * n;
  auto time_one = [&](bool bf16) {
    const auto t0 = std::chrono::steady_clock::now();
    if (bf16) at::mm_out(c16, a16, b16);
    else at::mm_out(c32, a32, b32);
    if (gpu) torch::cuda::synchronize();
    return flop / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1e9;
  };
  const double busy0 = machine_busy_jiffies(), self0 = self_jiffies();
  const auto w0 = std::chrono::steady_clock::now();
  std::vector<double> ratios, r32, r16;
  for (int i = 0; i < std::max(1, rounds); ++i) {
    // Alternate the order, so that a slowdown that grows or fades inside a pair favours neither.
    double f32, f16;
    if (i % 2 == 0) f32 = time_one(false), f16 = time_one(true);
    else f16 = time_one(true), f32 = time_one(false);
    r32.push_back(f32), r16.push_back(f16), ratios.push_back(f16 / f32);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  Bf16Speedup out;
  out.rounds = static_cast<int>(ratios.size());
  out.median = median_of(ratios);
  out.low = *std::min_element(ratios.begin(), ratios.end());
  out.high = *std::max_element(ratios.begin(), ratios.end());
  out.fp32_gflops = median_of(r32);
  out.bf16_gflops = median_of(r16);
  const double others = (machine_busy_jiffies() - busy0) - (self_jiffies() - self0);
  out.others_busy_cores = wall > 0 && ticks > 0 ? std::max(0.0, others / ticks / wall) : 0.0;
  return out;
}

double measure_gemm_gflops_as(const std::string& dtype, int n, int repeats, const std::string& device) {
  if (dtype != "fp32" && dtype != "bf16") throw core::Error("dtype", "must be fp32 or bf16, got \"" + dtype + "\"");
  const bool gpu = device != "cpu";
  const at::TensorOptions opt =
      at::TensorOptions().dtype(dtype == "bf16" ? at::kBFloat16 : at::kFloat).device(at::Device(device));
  const at::Tensor a = at::randn({n, n}).to(opt), b = at::randn({n, n}).to(opt);  // (n, n)
  at::Tensor c = at::mm(a, b);  // warm-up (oneDNN / cuBLAS pick their kernel on the first call)
  if (gpu) torch::cuda::synchronize();
  double best = 0.0;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    at::mm_out(c, a, b);
    if (gpu) torch::cuda::synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * n * static_cast<double>(n) * n / s / 1e9);
  }
  return best;
}

}  // namespace pha::nn
