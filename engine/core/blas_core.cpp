// OpenBLAS kernel policy (blas_core.h): replace OpenBLAS's generic fallback kernels on CPUs it
// does not recognise, by re-executing with OPENBLAS_CORETYPE.
#include "core/blas_core.h"

#include <dlfcn.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pha::core {
namespace {

constexpr const char* kDetectedVar = "PHA_BLAS_CORE_DETECTED";

std::string openblas_string(const char* symbol) {
  using Fn = char* (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, symbol));
  if (!fn) return "";
  const char* s = fn();
  return s ? std::string(s) : std::string();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

std::string level_text(CpuVectorLevel l) {
  switch (l) {
    case CpuVectorLevel::Avx512: return "AVX-512";
    case CpuVectorLevel::Avx2: return "AVX2";
    case CpuVectorLevel::Avx: return "AVX";
    case CpuVectorLevel::Sse: break;
  }
  return "SSE only";
}

BlasCorePolicy decide_blas_core() {
  BlasCorePolicy p;
  const char* env = std::getenv("PHA_BLAS_CORE");
  const std::string value = env ? env : "";
  p.policy = value == "system" ? "system" : "auto";
  if (!value.empty() && value != "system" && value != "auto") {
    p.warning = "PHA_BLAS_CORE=\"" + value + "\" is not one of auto, system; using auto";
  }
  p.core = trimmed(openblas_string("openblas_get_corename"));
  if (p.core.empty()) return p;  // not OpenBLAS
  const char* user = std::getenv("OPENBLAS_CORETYPE");
  const char* detected = std::getenv(kDetectedVar);
  if (user && detected && *detected) {  // set by this policy before re-executing
    p.chosen_by = "pha";
    p.detected = detected;
  } else if (user) {
    p.chosen_by = "OPENBLAS_CORETYPE";
  } else {
    p.chosen_by = "openblas";
  }
  return p;
}

}  // namespace

CpuVectorFeatures cpu_vector_features() {
  CpuVectorFeatures f;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx")) f.level = CpuVectorLevel::Avx;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) f.level = CpuVectorLevel::Avx2;
  // OpenBLAS's SkylakeX kernels use F, BW, DQ, VL and CD.
  if (f.level == CpuVectorLevel::Avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512cd")) {
    f.level = CpuVectorLevel::Avx512;
    f.avx512_bf16 = __builtin_cpu_supports("avx512bf16");
  }
  return f;
}

int openblas_core_level(const std::string& core) {
  // OpenBLAS 0.3.21's x86-64 core names (driver/others/dynamic.c), by the vector level of the
  // kernels it runs for them.
  static const struct {
    const char* name;
    int level;
  } kCores[] = {
      {"Unknown", 0},     {"Katmai", 0},    {"Coppermine", 0}, {"Northwood", 0},      {"Prescott", 0},
      {"Banias", 0},      {"Atom", 0},      {"Core2", 0},      {"Penryn", 0},         {"Dunnington", 0},
      {"Nehalem", 0},     {"Athlon", 0},    {"Opteron", 0},    {"Opteron(SSE3)", 0},  {"Barcelona", 0},
      {"Nano", 0},        {"Bobcat", 0},    {"Sandybridge", 1}, {"Bulldozer", 1},     {"Piledriver", 1},
      {"Steamroller", 1}, {"Haswell", 2},   {"Excavator", 2},  {"Zen", 2},            {"Dhyana", 2},
      {"SkylakeX", 3},    {"Cooperlake", 3}, {"SapphireRapids", 3},
  };
  for (const auto& c : kCores) {
    if (strcasecmp(core.c_str(), c.name) == 0) return c.level;
  }
  return -1;
}

std::string better_openblas_core(const std::string& detected, const CpuVectorFeatures& cpu) {
  const int have = openblas_core_level(detected);
  if (have < 0 || have >= static_cast<int>(CpuVectorLevel::Avx2)) return "";  // not a fallback
  switch (cpu.level) {
    case CpuVectorLevel::Avx512: return cpu.avx512_bf16 ? "Cooperlake" : "SkylakeX";
    case CpuVectorLevel::Avx2: return "Haswell";
    default: return "";  // an AVX-only CPU: OpenBLAS's choice is its best
  }
}

const BlasCorePolicy& blas_core_policy() {
  static const BlasCorePolicy policy = decide_blas_core();
  return policy;
}

void apply_blas_core_policy_at_startup(char** argv) {
  const BlasCorePolicy& p = blas_core_policy();
  // once: a re-executed process (chosen_by "pha") has printed it before
  if (!p.warning.empty() && p.chosen_by != "pha") std::fprintf(stderr, "pha: warning: %s\n", p.warning.c_str());
  if (p.policy != "auto" || p.chosen_by != "openblas" || argv == nullptr || argv[0] == nullptr) return;
  if (openblas_string("openblas_get_config").find("DYNAMIC_ARCH") == std::string::npos) return;
  const std::string better = better_openblas_core(p.core, cpu_vector_features());
  if (better.empty()) return;
  setenv("OPENBLAS_CORETYPE", better.c_str(), 1);
  setenv(kDetectedVar, p.core.c_str(), 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  // Only reached when the program cannot be re-executed: carry on with OpenBLAS's kernels.
  const int err = errno;
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kDetectedVar);
  std::fprintf(stderr, "pha: warning: could not re-run with OPENBLAS_CORETYPE=%s (%s); BLAS stays on %s\n",
               better.c_str(), std::strerror(err), p.core.c_str());
}

std::string blas_core_policy_text() {
  const BlasCorePolicy& p = blas_core_policy();
  if (p.core.empty()) return "not OpenBLAS (PHA_BLAS_CORE has no effect)";
  const std::string cpu = level_text(cpu_vector_features().level);
  if (p.chosen_by == "pha") {
    return p.core + " (chosen by pha: OpenBLAS found " + p.detected + " on a CPU with " + cpu +
           "; PHA_BLAS_CORE=system keeps OpenBLAS's choice)";
  }
  if (p.chosen_by == "OPENBLAS_CORETYPE") return p.core + " (OPENBLAS_CORETYPE, as set)";
  const std::string better = better_openblas_core(p.core, cpu_vector_features());
  if (!better.empty()) {
    const std::string why = p.policy == "system" ? "kept by PHA_BLAS_CORE=system" : "this program did not replace it";
    return p.core + " (OpenBLAS's choice, " + why + "; " + better + " would suit this CPU's " + cpu + ")";
  }
  return p.core + " (OpenBLAS's choice, CPU with " + cpu + ")";
}

}  // namespace pha::core
