#include <gtest/gtest.h>
#include <regex>

#include "cli_runner.h"
#include "core/blas_core.h"

TEST(CliInfo, ReportsVersionsThreadsBlasAndAMeasuredGemmRate) {
  auto r = run_cli("--threads 2 info");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("LibTorch"), std::string::npos);
  EXPECT_NE(r.output.find("threads         intra-op 2, BLAS 2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("thread policy"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("BLAS"), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("fp32 GEMM +([0-9.]+) GFLOP/s"))) << r.output;
  EXPECT_GT(std::stod(m[1]), 0.0);
  EXPECT_NE(r.output.find("data directory"), std::string::npos);
}

TEST(CliInfo, NamesMissingDataAndTheFix) {
  auto r = run_cli("info --no-gemm", "PHA_DATA_DIR=/tmp/pha-cli-test-empty");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("fp32 GEMM"), std::string::npos);
  EXPECT_NE(r.output.find("missing: run `pha data install gutenberg`"), std::string::npos) << r.output;
}

TEST(CliInfo, BadCommandLineExitsWithTheUsageCode) {
  EXPECT_EQ(run_cli("no-such-command").exit_code, 2);
  EXPECT_EQ(run_cli("--threads -3 info").exit_code, 2);
}

// The OpenBLAS kernel policy (core/blas_core.h), as `pha info` reports it. On a CPU with AVX2
// or AVX-512 the program never runs OpenBLAS's pre-AVX2 fallback kernels unless asked to.
namespace {
// env: settings for `pha`, which starts without the policy's variables inherited from here
std::string blas_kernels_line(const std::string& env) {
  auto r = run_cli("info --no-gemm", "env -u OPENBLAS_CORETYPE -u PHA_BLAS_CORE_DETECTED " + env);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  if (!std::regex_search(r.output, m, std::regex("BLAS kernels +([^\n]*)"))) return "(no BLAS kernels line) " + r.output;
  return m[1];
}
}  // namespace

TEST(CliInfo, BlasKernelsSuitTheCpuAndTheSwitchesWork) {
  const std::string line = blas_kernels_line("");
  if (line.rfind("not OpenBLAS", 0) == 0) GTEST_SKIP() << line;
  const std::string core = line.substr(0, line.find(' '));
  const pha::core::CpuVectorFeatures cpu = pha::core::cpu_vector_features();
  if (cpu.level >= pha::core::CpuVectorLevel::Avx2 && pha::core::openblas_core_level(core) >= 0) {
    EXPECT_GE(pha::core::openblas_core_level(core), 2) << line;
  }
  EXPECT_EQ(pha::core::better_openblas_core(core, cpu), "") << line;
  // the user's OPENBLAS_CORETYPE is kept, and said so
  EXPECT_EQ(blas_kernels_line("OPENBLAS_CORETYPE=Prescott"), "Prescott (OPENBLAS_CORETYPE, as set)");
  // PHA_BLAS_CORE=system keeps OpenBLAS's own choice: no OPENBLAS_CORETYPE appears
  const std::string system = blas_kernels_line("PHA_BLAS_CORE=system");
  EXPECT_EQ(system.find("chosen by pha"), std::string::npos) << system;
  EXPECT_EQ(system.find("OPENBLAS_CORETYPE"), std::string::npos) << system;
  // a bad value is named, and the default applies
  auto bad = run_cli("info --no-gemm", "PHA_BLAS_CORE=fast");
  EXPECT_EQ(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("PHA_BLAS_CORE=\"fast\" is not one of auto, system"), std::string::npos) << bad.output;
}

// --kernels / PHA_KERNELS (kernels/common/kernel_select.h): `pha info` says the selection; a bad
// value is a usage error naming what is allowed.
TEST(CliInfo, KernelsSelectionIsShownAndABadOneRefused) {
  auto fused = run_cli("info --no-gemm");
  ASSERT_EQ(fused.exit_code, 0) << fused.output;
  EXPECT_NE(fused.output.find("model kernels   fused"), std::string::npos) << fused.output;
  auto ref = run_cli("--kernels reference:gss_conv,attention info --no-gemm");
  ASSERT_EQ(ref.exit_code, 0) << ref.output;
  EXPECT_NE(ref.output.find("model kernels   reference:attention,gss_conv"), std::string::npos) << ref.output;
  auto env = run_cli("info --no-gemm", "PHA_KERNELS=reference");
  EXPECT_NE(env.output.find("model kernels   reference "), std::string::npos) << env.output;
  auto bad = run_cli("--kernels reference:fft info --no-gemm");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("allowed"), std::string::npos) << bad.output;
}
