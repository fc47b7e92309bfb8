// OpenBLAS kernel ("core") policy, applied first thing in main() by both programs (and so by the
// `pha __profile-point` and local distributed workers, which inherit its environment). No torch,
// no Qt.
//
// Why: Debian 12's OpenBLAS (0.3.21, DYNAMIC_ARCH) picks its kernels from the CPU's family and
// model number when it is loaded. On CPUs newer than the library (Emerald Rapids, family 6 model
// 207, on the reference VM) it does not know the model and falls back to its generic SSE3
// kernels ("Prescott"), although the CPU has AVX-512: a 2048^3 fp32 GEMM then runs at 32 instead
// of 157 GFLOP/s on one thread (docs/environment.md, "BLAS kernels", has the figures).
// OpenBLAS reads OPENBLAS_CORETYPE only while it is loaded, before main(), so the policy sets it
// and re-executes the program once (same pid, arguments and descriptors).
//
// PHA_BLAS_CORE selects the policy:
//   auto (default)  when OpenBLAS fell back to a pre-AVX2 core on a CPU that has AVX2 or
//                   AVX-512 (checked with the compiler's CPU feature tests, which include the
//                   OS's register-state support), re-run with OPENBLAS_CORETYPE set to the core
//                   for the CPU's level: Cooperlake (AVX-512 with BF16), SkylakeX (AVX-512),
//                   Haswell (AVX2 + FMA)
//   system          OpenBLAS's own choice is kept
// A user's OPENBLAS_CORETYPE is never overridden; a non-OpenBLAS or single-kernel BLAS is left
// alone.
#pragma once

#include <string>

namespace pha::core {

// What the CPU supports, as the kernels need it.
enum class CpuVectorLevel { Sse = 0, Avx = 1, Avx2 = 2, Avx512 = 3 };

struct CpuVectorFeatures {
  CpuVectorLevel level = CpuVectorLevel::Sse;
  bool avx512_bf16 = false;
};

// This CPU's features (__builtin_cpu_supports: CPUID and the OS's XSAVE state).
CpuVectorFeatures cpu_vector_features();

// The level an OpenBLAS core name's kernels use; -1 for a name this table does not know (a
// newer library's core: never replaced). Case-insensitive.
int openblas_core_level(const std::string& core);

// The core to force instead of `detected` on a CPU with `cpu`, or "" to keep it: only a known
// pre-AVX2 core (OpenBLAS's fallbacks) on a CPU of a higher level is replaced.
std::string better_openblas_core(const std::string& detected, const CpuVectorFeatures& cpu);

struct BlasCorePolicy {
  std::string policy;     // "auto" or "system"
  std::string core;       // the core OpenBLAS uses in this process ("" when not OpenBLAS)
  std::string detected;   // OpenBLAS's own choice when the policy replaced it, else ""
  std::string chosen_by;  // "openblas", "pha" (this policy) or "OPENBLAS_CORETYPE" (the user)
  std::string warning;    // non-empty: PHA_BLAS_CORE had a value that is not allowed
};

// Decides the policy; when it replaces the core, sets OPENBLAS_CORETYPE (and
// PHA_BLAS_CORE_DETECTED, for the report) and re-executes /proc/self/exe with argv, so it does
// not return. When the re-execution fails, carries on with OpenBLAS's choice and says so on
// stderr. Prints the policy's warning (if any).
void apply_blas_core_policy_at_startup(char** argv);

// The policy in effect in this process (no re-execution).
const BlasCorePolicy& blas_core_policy();

// For `pha info`: "SkylakeX (chosen by pha: OpenBLAS found Prescott on a CPU with AVX-512;
// PHA_BLAS_CORE=system keeps OpenBLAS's choice)".
std::string blas_core_policy_text();

}  // namespace pha::core
