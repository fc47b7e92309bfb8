// `pha report` and `pha runs list` on the real binary over a store written with known values
// (no training): the grouped listing (mean ± std (n) per group, replicas on request), the
// report in its three formats (JSON parses, HTML is one self-contained page, Markdown names the
// verdicts), and bad input with the documented exit codes.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"

using nlohmann::json;

namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

json task_project() {
  return json::parse(R"({
    "name": "report-study",
    "data": {"kind": "task",
             "train": {"task": "mqar", "seq_len": 16, "num_kv_pairs": 2, "vocab_size": 32, "num_examples": 100}},
    "model": {"variant": "pha", "d_model": 16, "n_layers": 2, "context": 32, "attention": {"heads": 2, "kv_heads": 1},
              "gss": {"expanded": 32, "reduced": 8, "state": 8}, "ffn": {"d_ff": 32}},
    "training": {"steps": 10, "batch_size": 4, "warmup_steps": 2},
    "variants": ["pha", "transformer"],
    "seeds": [0, 1, 2],
    "claims": [
      {"claim": "higher_is_better", "metric": "accuracy", "better": "pha", "than": "transformer", "paper": "hybrid > attention"},
      {"claim": "accuracy_at_params", "family": "hybrid", "max_params": 2000, "min_accuracy": 0.85}
    ]
  })");
}

// Three finished replicas per variant with known final accuracies (and a profile run, which
// has no group).
void write_store(const std::string& path) {
  auto s = pha::store::Store::open(path);
  const double acc[2][3] = {{0.90, 0.92, 0.94}, {0.50, 0.60, 0.55}};
  const char* groups[] = {"pha", "transformer"};
  for (int g = 0; g < 2; ++g)
    for (int seed = 0; seed < 3; ++seed) {
      pha::store::NewRun nr;
      nr.project = "report-study";
      nr.name = std::string(groups[g]) + "/seed=" + std::to_string(seed);
      nr.variant = groups[g];
      nr.group = groups[g];
      nr.seed = seed;
      nr.n_params = g == 0 ? 1800 : 1200;
      nr.config_json = R"({"data": {"kind": "task"}})";
      pha::store::RunWriter w(s, s.create_run(nr));
      w.metric("train/loss", 10, 0, 0, 1.0 - acc[g][seed]);
      w.metric("test/test/accuracy", 10, 0, 0, acc[g][seed]);
      w.finish(pha::store::RunStatus::Finished);
    }
  pha::store::NewRun profile;
  profile.project = "report-study";
  profile.name = "profile: pha";
  profile.kind = pha::store::RunKind::Profile;
  s.create_run(profile);
}

}  // namespace

TEST(CliReport, RunsListShowsOneLinePerGroupWithMeanStdAndN) {
  pha::test::TempProject p;
  p.write_project(task_project());
  write_store(p.store());
  CliResult r = run_cli("runs list --project " + quoted(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0.9200 ± 0.0200 (3)"), std::string::npos) << "pha's accuracy over its replicas\n" << r.output;
  EXPECT_NE(r.output.find("0.5500 ± 0.0500 (3)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 finished"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("profile: pha"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pha/seed=1"), std::string::npos) << "replicas only on request\n" << r.output;
  r = run_cli("runs list --replicas --project " + quoted(p.dir()));
  EXPECT_NE(r.output.find("pha/seed=1 (seed 1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0.9200  "), std::string::npos) << "a replica's own value\n" << r.output;
  r = run_cli("runs list --group transformer --project " + quoted(p.dir()));
  EXPECT_NE(r.output.find("transformer/seed=2"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pha/seed=0"), std::string::npos) << r.output;
}

TEST(CliReport, ReportInEveryFormat) {
  pha::test::TempProject p;
  p.write_project(task_project());
  write_store(p.store());
  CliResult r = run_cli("report " + quoted(p.dir()) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output);
  EXPECT_EQ(j["project"], "report-study");
  ASSERT_EQ(j["claims"].size(), 2u);
  EXPECT_EQ(j["claims"][0]["verdict"], "holds");
  EXPECT_EQ(j["claims"][0]["paper"], "hybrid > attention");
  EXPECT_NEAR(j["claims"][0]["rows"][0]["effect"]["mean"].get<double>(), 0.37, 1e-12);
  EXPECT_EQ(j["claims"][1]["verdict"], "holds") << "pha: 1800 parameters, interval [0.870, 0.970] above 0.85";
  EXPECT_EQ(j["groups"][1]["family"], "attention");

  r = run_cli("report " + quoted(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("# Report: report-study"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("**verdict: holds**"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("## Parameter efficiency"), std::string::npos) << r.output;

  const auto html = p.dir() / "report.html";
  r = run_cli("report " + quoted(p.dir()) + " --format html --output " + quoted(html));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("written to"), std::string::npos) << r.output;
  std::ifstream in(html);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string page = ss.str();
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("</html>"), std::string::npos);
}

TEST(CliReport, BadInputExitsWithTheDocumentedCodes) {
  pha::test::TempProject p;
  p.write_project(task_project());
  CliResult r = run_cli("report " + quoted(p.dir()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no run store yet"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(p.store())) << "the report never creates a store";
  EXPECT_EQ(run_cli("report " + quoted(p.dir()) + " --format pdf").exit_code, 2);
  json j = task_project();
  j["claims"][0]["better"] = "hybrid";
  p.write_project(j);
  r = run_cli("report " + quoted(p.dir()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("claims[0].better: \"hybrid\" is not allowed"), std::string::npos) << r.output;
}
