// `pha report` and `pha runs list` on the real binary over a store written with known values
// (no training): the grouped listing (mean ± std (n) per group, replicas on request), the
// report in its three formats (JSON parses, HTML is one self-contained page, Markdown names the
// verdicts), and bad input with the documented exit codes.
#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"

using nlohmann::json;

namespace {


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
  CliResult r = run_cli("runs list --project " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0.9200 ± 0.0200 (3)"), std::string::npos) << "pha's accuracy over its replicas\n" << r.output;
  EXPECT_NE(r.output.find("0.5500 ± 0.0500 (3)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 finished"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("final val loss"), std::string::npos) << "the columns say they are final values\n" << r.output;
  EXPECT_NE(r.output.find("profile: pha"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pha/seed=1"), std::string::npos) << "replicas only on request\n" << r.output;
  r = run_cli("runs list --replicas --project " + shell_word(p.dir()));
  EXPECT_NE(r.output.find("pha/seed=1 (seed 1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0.9200  "), std::string::npos) << "a replica's own value\n" << r.output;
  r = run_cli("runs list --group transformer --project " + shell_word(p.dir()));
  EXPECT_NE(r.output.find("transformer/seed=2"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pha/seed=0"), std::string::npos) << r.output;
}

TEST(CliReport, ReportInEveryFormat) {
  pha::test::TempProject p;
  p.write_project(task_project());
  write_store(p.store());
  CliResult r = run_cli("report " + shell_word(p.dir()) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output);
  EXPECT_EQ(j["project"], "report-study");
  ASSERT_EQ(j["claims"].size(), 2u);
  EXPECT_EQ(j["claims"][0]["verdict"], "holds");
  EXPECT_EQ(j["claims"][0]["paper"], "hybrid > attention");
  EXPECT_NEAR(j["claims"][0]["rows"][0]["effect"]["mean"].get<double>(), 0.37, 1e-12);
  EXPECT_EQ(j["claims"][0]["rows"][0]["test"]["text"], "paired by seed, n=3");
  // pha (1800 parameters) reaches 0.85 in 3 of 3 seeds: Wilson [0.4385, 1] still contains 1/2.
  EXPECT_EQ(j["claims"][1]["verdict"], "inconclusive at this scale") << j["claims"][1].dump();
  EXPECT_EQ(j["claims"][1]["rows"][0]["measured"][0]["successes"]["k"], 3);
  EXPECT_EQ(j["statistics"]["correction"], "holm");
  EXPECT_EQ(j["statistics"]["m"], 2);
  EXPECT_EQ(j["groups"][1]["family"], "attention");

  r = run_cli("report " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("# Report: report-study"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("**verdict: holds**"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("## Parameter efficiency"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("**Statistics:** Holm (1979)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| p (raw / adjusted) |"), std::string::npos) << r.output;

  const auto html = p.dir() / "report.html";
  r = run_cli("report " + shell_word(p.dir()) + " --format html --output " + shell_word(html));
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
  CliResult r = run_cli("report " + shell_word(p.dir()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no run store yet"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(p.store())) << "the report never creates a store";
  EXPECT_EQ(run_cli("report " + shell_word(p.dir()) + " --format pdf").exit_code, 2);
  json j = task_project();
  j["claims"][0]["better"] = "hybrid";
  p.write_project(j);
  r = run_cli("report " + shell_word(p.dir()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("claims[0].better: \"hybrid\" is not allowed"), std::string::npos) << r.output;
}

// A run trained twice with the same seed is two runs, not a group of replicas: `pha runs list`
// lists them apart, as the window does (it folded them into one line with n = 1).
TEST(CliReport, RunsListListsRerunsOfOneSeedApart) {
  pha::test::TempProject p;
  p.write_project(task_project());
  {
    auto s = pha::store::Store::open(p.store());
    for (int rerun = 0; rerun < 2; ++rerun) {
      pha::store::NewRun nr;
      nr.project = "report-study";
      nr.name = "pha-tiny";
      nr.group = "pha-tiny";
      nr.seed = 1;
      pha::store::RunWriter w(s, s.create_run(nr));
      w.metric("train/loss", 10, 0, 0, 2.0 + rerun);
      w.finish(pha::store::RunStatus::Finished);
    }
  }
  const CliResult r = run_cli("runs list --project " + shell_word(p.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2.0000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3.0000"), std::string::npos) << "the rerun has its own line\n" << r.output;
  EXPECT_EQ(r.output.find("(1)"), std::string::npos) << "no group line of one replica\n" << r.output;
  EXPECT_EQ(r.output.find("1,2"), std::string::npos) << r.output;
}

// `pha runs show` of a profile run shows its measured rows, not an empty metrics heading.
TEST(CliReport, RunsShowOfAProfileRunShowsItsPerfRows) {
  pha::test::TempProject p;
  p.write_project(task_project());
  std::int64_t id = 0;
  {
    auto s = pha::store::Store::open(p.store());
    pha::store::NewRun nr;
    nr.name = "profile: pha";
    nr.kind = pha::store::RunKind::Profile;
    id = s.create_run(nr);
    pha::store::RunWriter w(s, id);
    w.perf({128, 16, 7476.0, 291070000, "cpu", "train", "median of 3 after 1 warm-up"});
    w.finish(pha::store::RunStatus::Finished);
  }
  const CliResult r = run_cli("runs show --project " + shell_word(p.dir()) + " " + std::to_string(id));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("metrics: none (a profile run records perf rows, below)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("metrics (last"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("T=128"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("7476 tokens/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("median of 3 after 1 warm-up"), std::string::npos) << r.output;
}

// A project trained elsewhere (its data not here) gets its report: it needs the store only
// (it exited 3, "folder not found (data.path)").
TEST(CliReport, AReportNeedsTheStoreNotTheData) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["data"]["path"] = "/srv/elsewhere/corpus.txt";
  p.write_project(j);
  {
    auto s = pha::store::Store::open(p.store());
    pha::store::NewRun nr;
    nr.project = "test";
    nr.name = "test";
    nr.group = "test";
    nr.seed = 7;
    pha::store::RunWriter w(s, s.create_run(nr));
    w.metric("val/loss", 6, 0, 0, 2.5);
    w.finish(pha::store::RunStatus::Finished);
  }
  const CliResult r = run_cli("report " + shell_word(p.dir()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| test | hybrid | - | 1 of 1 |"), std::string::npos) << "the run is reported\n" << r.output;
}

// The store corrupted on 2026-12-02: every command that reads it says it is damaged (exit 3,
// the file untouched); `pha runs recover` saves its readable runs into a new store, keeps the
// damaged file beside it, says what was saved; then the commands read the new store.
TEST(CliReport, ADamagedStoreIsRefusedByEveryReaderAndRecovered) {
  namespace fs = std::filesystem;
  pha::test::TempProject p;
  p.write_project(p.text_project());
  fs::copy_file(std::string(PHA_SOURCE_DIR) + "/tests/engine/store/data/damaged-2026-12-02.sqlite", p.store());
  fs::permissions(p.store(), fs::perms::owner_read | fs::perms::owner_write);
  auto bytes = [](const std::string& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string before = bytes(p.store());
  for (const std::string& cmd : {"runs list --project " + shell_word(p.dir()), "runs show --project " + shell_word(p.dir()) + " 1",
                                 "report " + shell_word(p.dir()), "export --project " + shell_word(p.dir()) + " --run 1",
                                 "train " + shell_word(p.dir()) + " --quiet"}) {
    const CliResult r = run_cli(cmd);
    EXPECT_EQ(r.exit_code, 3) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("the run store is damaged (PRAGMA quick_check: "), std::string::npos) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("pha runs recover"), std::string::npos) << cmd << "\n" << r.output;
  }
  EXPECT_TRUE(bytes(p.store()) == before) << "a command wrote to the damaged store";

  const CliResult rec = run_cli("runs recover " + shell_word(p.dir()));
  ASSERT_EQ(rec.exit_code, 0) << rec.output;
  EXPECT_NE(rec.output.find("was damaged (PRAGMA quick_check: Page 12: btreeInitPage() returns error code 11"),
            std::string::npos) << rec.output;
  EXPECT_NE(rec.output.find("PRAGMA integrity_check: ok"), std::string::npos) << rec.output;
  EXPECT_NE(rec.output.find("8,988 saved"), std::string::npos) << "the metric points\n" << rec.output;
  EXPECT_NE(rec.output.find("evals"), std::string::npos) << rec.output;
  EXPECT_NE(rec.output.find("the damaged file is kept as"), std::string::npos) << rec.output;
  EXPECT_NE(rec.output.find("pha-d64-l6"), std::string::npos) << "each saved run is listed\n" << rec.output;
  const CliResult again = run_cli("runs recover " + shell_word(p.dir()));
  EXPECT_EQ(again.exit_code, 3) << again.output;
  EXPECT_NE(again.output.find("nothing to recover"), std::string::npos) << again.output;
  const CliResult list = run_cli("runs list --project " + shell_word(p.dir()));
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("sequential-tiny"), std::string::npos) << list.output;
  int kept = 0;
  for (const auto& e : fs::directory_iterator(p.dir()))
    if (e.path().filename().string().rfind("runs.sqlite.damaged-", 0) == 0 && e.path().extension() != ".sqlite-wal" &&
        e.path().filename().string().find("-shm") == std::string::npos &&
        e.path().filename().string().find("-wal") == std::string::npos) {
      ++kept;
      EXPECT_TRUE(bytes(e.path().string()) == before);
    }
  EXPECT_EQ(kept, 1);
}
