// Allocator policy (allocator.h): mallopt thresholds for glibc malloc, chosen by PHA_ALLOCATOR.
#include "core/allocator.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

// A build with AddressSanitizer (the asan and fuzz presets) allocates through the sanitizer's own
// allocator, whose mallopt interceptor changes nothing: the policy is skipped there and said so.
#if defined(__SANITIZE_ADDRESS__)
#define PHA_ASAN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PHA_ASAN_ALLOCATOR 1
#endif
#endif

namespace pha::core {
namespace {

// The malloc in use: a preloaded jemalloc or tcmalloc shows up as a mapped shared object.
std::string mapped_allocator() {
#ifdef PHA_ASAN_ALLOCATOR
  return "asan";
#else
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libjemalloc") != std::string::npos) return "jemalloc";
    if (line.find("libtcmalloc") != std::string::npos) return "tcmalloc";
  }
  return "glibc";
#endif
}

AllocatorPolicy decide_allocator() {
  AllocatorPolicy p;
  const char* env = std::getenv("PHA_ALLOCATOR");
  const std::string value = env ? env : "";
  p.policy = value == "system" ? "system" : "tuned";
  if (!value.empty() && value != "system" && value != "tuned") {
    p.warning = "PHA_ALLOCATOR=\"" + value + "\" is not one of tuned, system; using tuned";
  }
  p.allocator = mapped_allocator();
  if (p.policy == "tuned" && p.allocator == "glibc") {
    // mallopt returns 1 on success; both calls also switch off glibc's dynamic threshold.
    p.applied = mallopt(M_MMAP_THRESHOLD, kTunedMmapThreshold) == 1 &&
                mallopt(M_TRIM_THRESHOLD, kTunedTrimThreshold) == 1;
  }
  return p;
}

}  // namespace

const AllocatorPolicy& apply_allocator_policy() {
  static const AllocatorPolicy policy = decide_allocator();
  return policy;
}

void apply_allocator_policy_at_startup() {
  const AllocatorPolicy& p = apply_allocator_policy();
  if (!p.warning.empty()) std::fprintf(stderr, "pha: warning: %s\n", p.warning.c_str());
}

std::string allocator_policy_text() {
  const AllocatorPolicy& p = apply_allocator_policy();
  if (p.allocator == "asan") return "AddressSanitizer's allocator (sanitizer build; PHA_ALLOCATOR has no effect)";
  if (p.allocator != "glibc") return p.allocator + " (preloaded; PHA_ALLOCATOR has no effect)";
  if (p.applied) {
    return "glibc malloc, mmap threshold 32 MiB, trim threshold 2 GiB (PHA_ALLOCATOR=tuned; PHA_ALLOCATOR=system "
           "for glibc's defaults)";
  }
  if (p.policy == "tuned") return "glibc malloc, defaults (mallopt refused the tuned thresholds)";
  return "glibc malloc, defaults or GLIBC_TUNABLES (PHA_ALLOCATOR=system)";
}

}  // namespace pha::core
