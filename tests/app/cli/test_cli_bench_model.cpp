// `pha bench model` on the real binary: the engine's step benchmark (runtime::bench_steps,
// through Trainer) reported with tokens/s, the phase split, MFU against the GEMM rate measured
// in the same process, peak RSS (VmHWM), and the --trace file.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

TEST(CliBenchModel, JsonRowsAreMeasuredThroughTheTrainerWithMfuAndATrace) {
  const std::string trace = (std::filesystem::temp_directory_path() / "pha-bench-model-trace.json").string();
  std::filesystem::remove(trace);
  const CliResult r = run_cli("--threads 1 bench model --preset pha-tiny -T 32 --tokens 64 --steps 2 --warmup 1 "
                              "--gemm-size 256 --json --trace '" + trace + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(j["precision"], "fp32");
  ASSERT_EQ(j["results"].size(), 1u) << j.dump();
  const nlohmann::json& row = j["results"][0];
  EXPECT_EQ(row["model"], "pha-tiny");
  EXPECT_EQ(row["batch"], 2);
  EXPECT_EQ(row["device"], "cpu");
  EXPECT_NEAR(row["tokens_per_s"].get<double>(), 64.0 / row["step_s"].get<double>(), 1e-6 * row["tokens_per_s"].get<double>());
  for (const char* k : {"forward_s", "backward_s", "optimizer_s", "gemm_gflops", "train_flops_per_token"})
    EXPECT_GT(row[k].get<double>(), 0.0) << k;
  EXPECT_NEAR(row["mfu"].get<double>(),
              row["train_flops_per_token"].get<double>() * row["tokens_per_s"].get<double>() /
                  (row["gemm_gflops"].get<double>() * 1e9),
              1e-9);
  EXPECT_GT(row["peak_rss_bytes"].get<int64_t>(), 10 << 20);
  EXPECT_GT(row["params"].get<int64_t>(), 1000000);
  EXPECT_TRUE(std::filesystem::exists(trace)) << "--trace writes one extra profiled step";
  std::filesystem::remove(trace);

  const CliResult table = run_cli("--threads 1 bench model --preset pha-tiny -T 32 --tokens 64 --steps 1 --warmup 0 "
                                  "--gemm-size 256");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  for (const char* field : {"tokens/s", "MFU", "peak RSS", "runtime::Trainer"})
    EXPECT_NE(table.output.find(field), std::string::npos) << field << "\n" << table.output;
}
