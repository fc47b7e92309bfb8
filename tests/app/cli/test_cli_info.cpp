#include <gtest/gtest.h>
#include <regex>

#include "cli_runner.h"

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
