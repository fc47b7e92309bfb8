// What produced a run, through the CLI: `pha runs show` and `pha runs export` print the run's
// provenance (env.* columns), `pha info` the machine's precision calibration; and `pha plan`
// before training: the quickstart's runs, their tokens per parameter, an estimated time from a
// measured speed, and the claims (docs/cli.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"

using nlohmann::json;

namespace {
}  // namespace

TEST(CliProvenance, RunsShowAndExportTellWhatProducedTheRun) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"precision", "fp32"}}));
  const std::string dir = shell_word(p.dir());
  CliResult r = run_cli("--threads 1 train --quiet " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  r = run_cli("runs show --project " + dir + " --run 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("produced by"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("precision          fp32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("precision.reason   training.precision fp32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernels            fused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("program.commit"), std::string::npos) << r.output;

  r = run_cli("runs show --project " + dir + " --run 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(j["env"]["precision"], "fp32") << j.dump();

  r = run_cli("runs export --project " + dir + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string header = r.output.substr(0, r.output.find('\n'));
  for (const char* col : {"env.precision", "env.kernels", "env.threads.intra_op", "env.blas.core", "env.torch.version",
                          "env.program.commit", "env.cpu.model", "env.host"})
    EXPECT_NE(header.find(col), std::string::npos) << col << " missing from " << header;
}

TEST(CliProvenance, InfoShowsTheStoredCalibrationAndItsFile) {
  const std::string data = "/tmp/pha-cli-calibration-" + std::to_string(::getpid());
  std::filesystem::remove_all(data);
  CliResult r = run_cli("info --no-gemm", "PHA_DATA_DIR=" + data);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("program         "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CPU             "), std::string::npos) << r.output;
  if (r.output.find("calibration     bf16") == std::string::npos) {
    std::filesystem::remove_all(data);
    GTEST_SKIP() << "no native bf16 here: auto measures nothing\n" << r.output;
  }
  EXPECT_NE(r.output.find("measured now"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(data + "/calibration/precision.json"), std::string::npos) << r.output;
  r = run_cli("info --no-gemm", "PHA_DATA_DIR=" + data);
  EXPECT_EQ(r.output.find("measured now"), std::string::npos) << "a second process measured again\n" << r.output;
  r = run_cli("info --no-gemm --calibrate", "PHA_DATA_DIR=" + data);
  EXPECT_NE(r.output.find("measured now"), std::string::npos) << r.output;
  std::filesystem::remove_all(data);
}

TEST(CliPlan, TheQuickstartsRunsBudgetsAndTimeBeforeTraining) {
  pha::test::TempProject p;
  const std::string src = std::string(PHA_SOURCE_DIR) + "/projects/quickstart/project.json";
  std::filesystem::copy_file(src, p.dir() / "project.json");
  CliResult r = run_cli("--threads 1 plan --format json " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output.substr(r.output.find('{')));
  ASSERT_EQ(j["runs"].size(), 6u) << j.dump(2);  // 3 variants x 2 learning rates
  EXPECT_EQ(j["to_train"], 6);
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["tokens"], 150 * 8 * 128) << run.dump();
    const double tpp = run["tokens_per_param"].get<double>();
    EXPECT_NEAR(tpp, 153600.0 / run["n_params"].get<double>(), 1e-9);
    EXPECT_TRUE(run["early_training"].get<bool>()) << "0.1 tokens per parameter is early training";
    EXPECT_EQ(run["state"], "to train");
    ASSERT_FALSE(run["tokens_per_s"].is_null()) << run.dump();
    EXPECT_GT(run["tokens_per_s"].get<double>(), 0);
    EXPECT_NEAR(run["seconds"].get<double>(), 153600.0 / run["tokens_per_s"].get<double>(), 1e-6);
    EXPECT_NE(run["speed_source"].get<std::string>().find("measured now"), std::string::npos);
  }
  EXPECT_GT(j["seconds"].get<double>(), 0);
  EXPECT_EQ(j["early_training_tokens_per_param"], 20.0);

  r = run_cli("--threads 1 plan --no-measure " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("6 run(s) to train of 6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("early training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pha-tiny/lr=0.001"), std::string::npos) << r.output;

  EXPECT_EQ(run_cli("plan /nonexistent-project").exit_code, 3);
}
