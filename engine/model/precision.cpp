// Precision resolution (precision.h): hardware checks and the per-dtype GEMM rate.
#include "model/precision.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <fmt/format.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#ifdef PHA_TORCH_HAS_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include "core/error.h"

namespace pha::model {
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
    throw Error("training.precision", "must be auto, fp32 or bf16, got \"" + setting + "\"");
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
    if (setting == "auto") {
      PrecisionChoice a = auto_cpu_precision(flags, flags.empty() ? GemmRates{} : auto_probe_gemm_rates());
      a.setting = setting;
      return a;
    }
    native = !flags.empty();
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

PrecisionChoice auto_cpu_precision(const std::string& flags, const GemmRates& rates) {
  PrecisionChoice c;
  c.setting = "auto";
  if (flags.empty()) {
    c.precision = "fp32";
    c.reason = "auto: this CPU has no native bf16 (no avx512_bf16 / amx_bf16)";
    return c;
  }
  const bool faster = rates.bf16 >= kAutoBf16MinSpeedup * rates.fp32 && rates.bf16 > 0.0;
  c.precision = faster ? "bf16" : "fp32";
  c.reason = fmt::format(
      "auto: this CPU has native bf16 ({}); bf16 GEMMs measured {:.0f} GFLOP/s against fp32 {:.0f} here ({:.2f}x; "
      "bf16 needs >= {:.2f}x)",
      flags, rates.bf16, rates.fp32, rates.fp32 > 0.0 ? rates.bf16 / rates.fp32 : 0.0, kAutoBf16MinSpeedup);
  return c;
}

GemmRates auto_probe_gemm_rates() {
  static std::mutex m;
  static std::map<int, GemmRates> cache;  // by intra-op thread count
  std::lock_guard<std::mutex> lock(m);
  const int threads = at::get_num_threads();
  auto it = cache.find(threads);
  if (it != cache.end()) return it->second;
  GemmRates r;  // (randn tensors: no autograd)
  r.fp32 = measure_gemm_gflops_as("fp32", 1024, 3);
  r.bf16 = measure_gemm_gflops_as("bf16", 1024, 3);
  cache[threads] = r;
  return r;
}

double measure_gemm_gflops_as(const std::string& dtype, int n, int repeats, const std::string& device) {
  if (dtype != "fp32" && dtype != "bf16") throw Error("dtype", "must be fp32 or bf16, got \"" + dtype + "\"");
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

}  // namespace pha::model
