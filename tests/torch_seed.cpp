// Every test of a torch-linking engine or kernel binary starts from a fixed torch seed, derived
// from the test's full name (so a test draws the same numbers whether it runs alone, as ctest
// runs it, or after others in one process). Needed because Debian's LibTorch seeds its default
// generator randomly per process: a module built before a test's own at::manual_seed would get
// different weights on every run, and a tolerance test would pass or fail by chance (the
// step-9 bf16 GSS test failed CI that way). Linked by pha_add_test where PHA_TEST_TORCH_SEED
// is set (tests/kernels, tests/engine/{device,distributed,model,runtime}).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <ATen/Context.h>

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

class TorchSeedListener : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& info) override {
    at::manual_seed(fnv1a(std::string(info.test_suite_name()) + "." + info.name()) >> 1);
  }
};

const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new TorchSeedListener);
  return true;
}();

}  // namespace
