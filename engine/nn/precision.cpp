// Precision resolution (precision.h): hardware checks and the per-dtype GEMM rate.
#include "nn/precision.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>
#ifdef PHA_TORCH_HAS_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include "core/atomic_file.h"
#include "core/blas_core.h"
#include "core/error.h"
#include "core/paths.h"
#include "device/provenance.h"
#include "device/system_info.h"

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
      if (flags.empty()) return auto_cpu_precision(flags, GemmRates{});
      const PrecisionCalibration cal = precision_calibration();
      PrecisionChoice a = auto_cpu_precision(flags, cal.rates);
      a.reason += cal.file.empty() ? "; measured by this process: " + cal.problem
                                   : "; calibrated " + cal.measured_at + " UTC, stored in " + cal.file;
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

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

double load_average_now() {
  std::ifstream in("/proc/loadavg");
  double one = -1.0;
  if (!(in >> one)) return -1.0;
  return one;
}

GemmRates measure_auto_rates() {
  GemmRates r;
  r.fp32 = measure_gemm_gflops_as("fp32", 1024, 3);
  r.bf16 = measure_gemm_gflops_as("bf16", 1024, 3);
  return r;
}

// An exclusive lock on `path` (created when missing) for this scope: the processes that find
// no calibration measure one at a time, and the later ones read the first one's figures.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return fd_ >= 0; }

 private:
  int fd_;
};

nlohmann::json read_calibration_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  try {
    nlohmann::json j = nlohmann::json::parse(in);
    return j.is_object() ? j : nlohmann::json::object();
  } catch (const nlohmann::json::exception&) {
    return nlohmann::json::object();  // a damaged file is measured again and rewritten whole
  }
}

}  // namespace

std::string precision_calibration_key() {
  std::string flags = cpu_bf16_flags();
  return fmt::format("{} | {} | torch {}.{}.{} | BLAS core {} | intra-op {}, BLAS {}", pha::cpu_model_name(),
                     flags.empty() ? "no native bf16" : flags, TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                     TORCH_VERSION_PATCH, blas_core_policy().core.empty() ? "-" : blas_core_policy().core,
                     at::get_num_threads(), pha::blas_threads());
}

PrecisionCalibration precision_calibration(bool remeasure) {
  static std::mutex m;  // one measurement at a time in this process too
  std::lock_guard<std::mutex> guard(m);
  PrecisionCalibration c;
  c.key = precision_calibration_key();
  namespace fs = std::filesystem;
  const fs::path dir = data_dir() / "calibration";
  const fs::path file = dir / "precision.json";
  std::error_code ec;
  fs::create_directories(dir, ec);
  FileLock lock((dir / ".lock").string());
  if (ec || !lock.locked()) {
    c.rates = measure_auto_rates();
    c.measured_now = true;
    c.measured_at = utc_now();
    c.problem = "the calibration folder " + dir.string() + " cannot be written";
    return c;
  }
  nlohmann::json all = read_calibration_file(file);
  if (!remeasure && all.contains(c.key) && all[c.key].is_object()) {
    const nlohmann::json& e = all[c.key];
    c.rates.fp32 = e.value("fp32_gflops", 0.0);
    c.rates.bf16 = e.value("bf16_gflops", 0.0);
    c.measured_at = e.value("measured_at", std::string());
    c.load_average = e.value("load_average", -1.0);
    c.file = file.string();
    if (c.rates.fp32 > 0.0 && c.rates.bf16 > 0.0) return c;
  }
  c.load_average = load_average_now();
  c.rates = measure_auto_rates();
  c.measured_now = true;
  c.measured_at = utc_now();
  all[c.key] = {{"fp32_gflops", c.rates.fp32},
                {"load_average", c.load_average},
                {"bf16_gflops", c.rates.bf16},
                {"measured_at", c.measured_at},
                {"method", "1024x1024 GEMMs, best of 3 after a warm-up"}};
  try {
    write_file_atomic(file, {all.dump(2), "\n"});
    c.file = file.string();
  } catch (const Error& e) {
    c.file.clear();
    c.problem = e.what();
  }
  return c;
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
