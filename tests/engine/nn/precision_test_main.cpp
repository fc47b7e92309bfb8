// Main of test_precision and test_precision_cuda: the device comes from the program's name.
// Without a usable GPU the CUDA binary exits 77, which ctest reports as skipped (its test
// listing still runs, so the tests are discovered on every machine).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include <torch/cuda.h>

#include "precision_test.h"

namespace pha::nn::testing {
namespace {
std::string g_device = "cpu";
}
const std::string& test_device() { return g_device; }
}  // namespace pha::nn::testing

int main(int argc, char** argv) {
  const std::string self = argv[0];
  const bool cuda = self.size() >= 5 && self.compare(self.size() - 5, 5, "_cuda") == 0;
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--gtest_list_tests", 18) == 0;
  if (cuda) {
    pha::nn::testing::g_device = "cuda";
    if (!listing && !torch::cuda::is_available()) {
      std::printf("no usable GPU: the CUDA precision tests are skipped\n");
      return 77;
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
