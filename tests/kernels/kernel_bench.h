// Benchmark mode of the kernel test binary (test_kernels --bench).
#pragma once

namespace pha::kernels::testing {

// Times each op's dispatching implementation and its reference, forward and forward+backward,
// and prints one line per size. Returns 0.
int run_benchmarks(bool quick);

}  // namespace pha::kernels::testing
