// What produced a run, through the CLI: `pha runs show` and `pha runs export` print the run's
// provenance (env.* columns), `pha info` the fixed precision rule (the same idle and under
// load) and the measured bf16 speed-up; and `pha plan`
// before training: the quickstart's runs, their tokens per parameter, an estimated time from a
// measured speed, and the claims (docs/cli.md).
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "busy_loops.h"
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

// The line of `pha info` that starts with `label`.
std::string info_line_of(const std::string& out, const std::string& label) {
  const size_t at = out.find(label);
  return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

// auto never follows the machine's load: the same machine decides the same idle and beside four
// busy loops, and `pha info` says why; the measured bf16 speed-up (paired, interleaved rounds)
// gives the same advice both times.
TEST(CliProvenance, PrecisionIsTheSameIdleAndBesideFourBusyLoops) {
  CliResult idle = run_cli("info --no-gemm --calibrate");
  ASSERT_EQ(idle.exit_code, 0) << idle.output;
  const std::string decision = info_line_of(idle.output, "precision       training.precision auto");
  ASSERT_FALSE(decision.empty()) << idle.output;
  if (decision.find("on cpu") != std::string::npos) {
    EXPECT_NE(decision.find("fp32 (auto on a CPU is always fp32, a fixed rule"), std::string::npos) << decision;
  }
  CliResult busy;
  {
    pha::test::BusyLoops loops(4);
    ASSERT_EQ(loops.size(), 4u);
    busy = run_cli("info --no-gemm --calibrate");
  }
  ASSERT_EQ(busy.exit_code, 0) << busy.output;
  EXPECT_EQ(info_line_of(busy.output, "precision       training.precision auto"), decision) << busy.output;
  // The advice: the speed-up's side of 1.25x (the second line of the bf16 speed-up block).
  const auto advice = [](const std::string& out) {
    const std::string line = info_line_of(out, "bf16 speed-up");
    const size_t next = out.find('\n', out.find(line)) + 1;
    return out.substr(next, out.find('\n', next) - next).substr(0, 40);
  };
  ASSERT_FALSE(info_line_of(idle.output, "bf16 speed-up").empty()) << idle.output;
  EXPECT_EQ(advice(busy.output), advice(idle.output)) << "idle:\n" << idle.output << "\nbusy:\n" << busy.output;
  EXPECT_NE(info_line_of(busy.output, "bf16 speed-up").find("interleaved rounds"), std::string::npos) << busy.output;
}

TEST(CliPlan, TheQuickstartsRunsBudgetsAndTimeBeforeTraining) {
  pha::test::TempProject p;
  const std::string src = std::string(PHA_SOURCE_DIR) + "/projects/quickstart/project.json";
  std::filesystem::copy_file(src, p.dir() / "project.json");
  CliResult r = run_cli("--threads 1 plan --format json " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output.substr(r.output.find('{')));
  ASSERT_EQ(j["runs"].size(), 18u) << j.dump(2);  // 3 variants x 2 learning rates x 3 selection seeds
  EXPECT_EQ(j["to_train"], 18);
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["tokens"], 60 * 8 * 128) << run.dump();
    const double tpp = run["tokens_per_param"].get<double>();
    EXPECT_NEAR(tpp, 61440.0 / run["n_params"].get<double>(), 1e-9);
    EXPECT_TRUE(run["early_training"].get<bool>()) << "0.05 tokens per parameter is early training";
    EXPECT_EQ(run["state"], "to train");
    ASSERT_FALSE(run["tokens_per_s"].is_null()) << run.dump();
    EXPECT_GT(run["tokens_per_s"].get<double>(), 0);
    EXPECT_NEAR(run["seconds"].get<double>(), 61440.0 / run["tokens_per_s"].get<double>(), 1e-6);
    EXPECT_NE(run["speed_source"].get<std::string>().find("measured now"), std::string::npos);
  }
  EXPECT_GT(j["seconds"].get<double>(), 0);
  EXPECT_EQ(j["early_training_tokens_per_param"], 20.0);
  EXPECT_EQ(j["confirmation_runs"], 12) << "3 variants x 4 confirmation seeds, planned once the choices are made";
  // The two claims, each able to pass the correction at its 3 confirmation seeds.
  ASSERT_EQ(j["claims"].size(), 2u);
  EXPECT_EQ(j["family"], 2);
  for (const auto& c : j["claims"]) {
    EXPECT_EQ(c["role"], "primary");
    EXPECT_EQ(c["underpowered"], "") << c.dump();
    EXPECT_EQ(c["seeds"], 4);
  }

  r = run_cli("--threads 1 plan --no-measure " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("18 run(s) to train of 18"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("early training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pha-tiny/lr=0.01,seed=2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("can pass the correction at its planned seeds"), std::string::npos) << r.output;

  // A design that cannot give a verdict is said before a step is spent.
  json se = json::parse(std::ifstream(std::string(PHA_SOURCE_DIR) + "/projects/seed2-efficiency/project.json"));
  se["tune"]["confirm_seeds"] = {10, 11, 12, 13, 14};
  se["data"]["train"]["num_examples"] = 64;
  pha::test::TempProject q;
  q.write_project(se);
  r = run_cli("plan --no-measure " + shell_word(q.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("underpowered by design: even 5 of 5 seeds on one side give score p 0.0253, not below alpha / m "
                          "= 0.0056 (Holm's first step, m = 9)"),
            std::string::npos)
      << r.output;

  EXPECT_EQ(run_cli("plan /nonexistent-project").exit_code, 3);
}
