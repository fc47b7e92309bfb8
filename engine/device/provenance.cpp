#include "device/provenance.h"

#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/cuda.h>
#include <torch/version.h>
#ifdef PHA_TORCH_HAS_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include <fmt/format.h>

#include "core/blas_core.h"
#include "core/build_info.h"
#include "device/system_info.h"

namespace pha::device {

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return {};
  return buf;
}

std::string cpuinfo_field(const std::string& name) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return {};
}

// LibTorch's build settings that change numbers or speed, from at::show_config()'s
// "Build settings:" line ("BLAS_INFO=open, BUILD_TYPE=Release, ..., USE_MKLDNN=ON, ...").
std::string torch_build_settings() {
  static const std::set<std::string> keep = {"BLAS_INFO", "BUILD_TYPE", "USE_CUDA", "USE_MKLDNN", "USE_OPENMP",
                                             "USE_MPI", "USE_NCCL", "CUDA_VERSION", "CUDNN_VERSION"};
  const std::string config = at::show_config();
  const auto at_settings = config.find("Build settings:");
  std::string out;
  if (at_settings != std::string::npos) {
    std::string line = config.substr(at_settings + 15);
    line = line.substr(0, line.find('\n'));
    std::istringstream items(line);
    std::string item;
    while (std::getline(items, item, ',')) {
      item.erase(0, item.find_first_not_of(' '));
      const auto eq = item.find('=');
      if (eq == std::string::npos || !keep.count(item.substr(0, eq))) continue;
      out += (out.empty() ? "" : ", ") + item;
    }
  }
  const std::string parallel = at::get_parallel_info();
  const auto backend = parallel.find("ATen parallel backend: ");
  if (backend != std::string::npos) {
    std::string b = parallel.substr(backend + 23);
    out += (out.empty() ? "" : ", ") + std::string("parallel=") + b.substr(0, b.find('\n'));
  }
  return out;
}

}  // namespace

std::string cpu_model_name() {
  const std::string m = cpuinfo_field("model name");
  return m.empty() ? "unknown CPU" : m;
}

std::string cpu_kernel_flags() {
  static const std::vector<std::string> wanted = {"avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16",
                                                  "amx_tile", "amx_bf16", "amx_int8"};
  std::istringstream words(cpuinfo_field("flags"));
  std::set<std::string> have;
  std::string w;
  while (words >> w) have.insert(w);
  std::string out;
  for (const auto& f : wanted)
    if (have.count(f)) out += (out.empty() ? "" : " ") + f;
  return out.empty() ? "none of avx2/avx512/amx" : out;
}

nlohmann::json collect_provenance(const ProvenanceInputs& in) {
  const core::BuildInfo& b = core::build_info();
  nlohmann::json j = nlohmann::json::object();
  j["program.version"] = b.version;
  j["program.commit"] = b.commit;
  j["program.build"] = std::string(b.build_type) + ", " + b.compiler;
  j["precision"] = in.precision;
  j["precision.setting"] = in.precision_setting;
  j["precision.reason"] = in.precision_reason;
  j["kernels"] = in.kernels;
  j["threads.intra_op"] = std::to_string(at::get_num_threads());
  j["threads.blas"] = blas_threads() > 0 ? std::to_string(blas_threads()) : std::string("unknown");
  j["threads.policy"] = thread_policy_text();
  j["blas.library"] = blas_library();
  const core::BlasCorePolicy& core = core::blas_core_policy();
  j["blas.core"] = core.core.empty() ? std::string("-") : core.core + " (chosen by " + core.chosen_by + ")";
  j["torch.version"] = fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
  j["torch.build"] = torch_build_settings();
  j["device"] = in.device;
  std::string device_name = cpu_model_name();
#ifdef PHA_TORCH_HAS_CUDA
  if (in.device.rfind("cuda", 0) == 0 && torch::cuda::is_available())
    device_name = at::cuda::getDeviceProperties(0)->name;
#endif
  j["device.name"] = device_name;
  j["cpu.model"] = cpu_model_name();
  j["cpu.flags"] = cpu_kernel_flags();
  j["host"] = host_name();
  j["world_size"] = std::to_string(in.world_size);
  j["backend"] = in.backend.empty() ? std::string("none (one process)") : in.backend;
  return j;
}

}  // namespace pha::device
