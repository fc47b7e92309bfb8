// Main of the kernel test binary: GoogleTest by default; `--bench` runs the benchmark mode
// instead (dispatching implementation vs reference, timings per size), `--bench-quick` a short one.
#include <gtest/gtest.h>

#include <cstring>

#include "kernel_bench.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bench") == 0) return pha::kernels::testing::run_benchmarks(false);
    if (std::strcmp(argv[i], "--bench-quick") == 0) return pha::kernels::testing::run_benchmarks(true);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
