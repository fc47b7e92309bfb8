// Process-wide allocator policy, applied once at start-up by both programs (and therefore by
// the `pha __profile-point` workers, which are the `pha` program). No torch, no Qt.
//
// Why: with glibc's default malloc, every block above the (dynamic) mmap threshold is a fresh
// mmap whose pages fault in again on each training step, and freed heap tops are trimmed back
// to the kernel. Raising the mmap threshold to its maximum (32 MiB) and the trim threshold to
// 2 GiB keeps a training step's tensors in the heap from one step to the next
// (docs/environment.md, "Allocator", has the figures).
//
// PHA_ALLOCATOR selects the policy:
//   tuned (default)  glibc malloc with mallopt(M_MMAP_THRESHOLD, 32 MiB) and
//                    mallopt(M_TRIM_THRESHOLD, 2 GiB), the in-process equivalent of
//                    GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=...
//   system           nothing is changed (glibc's defaults, or GLIBC_TUNABLES as given)
// When another allocator (jemalloc, tcmalloc) is preloaded, or the build has AddressSanitizer
// (its allocator ignores mallopt), nothing is changed either.
#pragma once

#include <string>

namespace pha::core {

struct AllocatorPolicy {
  std::string policy;     // "tuned" or "system"
  std::string allocator;  // "glibc", "jemalloc", "tcmalloc", "asan" (the malloc actually in use)
  bool applied = false;   // the mallopt calls were made and accepted
  std::string warning;    // non-empty: PHA_ALLOCATOR had a value that is not allowed
};

// The mmap threshold the tuned policy sets: glibc's upper limit for it on 64-bit
// (HEAP_MAX_SIZE / 2); larger values are refused by mallopt.
constexpr int kTunedMmapThreshold = 32 << 20;
// The trim threshold: the largest value mallopt's int argument takes (about 2 GiB).
constexpr int kTunedTrimThreshold = 0x7fffffff;

// Reads PHA_ALLOCATOR and applies the policy (idempotent: the first call decides). A value
// other than tuned or system leaves a warning in the result and applies the default.
const AllocatorPolicy& apply_allocator_policy();

// apply_allocator_policy(), printing its warning (if any) on stderr: the one call at start-up.
void apply_allocator_policy_at_startup();

// For `pha info`: "glibc malloc, mmap threshold 32 MiB, trim threshold 2 GiB
// (PHA_ALLOCATOR=tuned; PHA_ALLOCATOR=system for glibc's defaults)".
std::string allocator_policy_text();

}  // namespace pha::core
