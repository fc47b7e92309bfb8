// `pha eval` on the real binary: tiny text, MQAR and binary selective-copy runs are trained
// with `pha train`, then evaluated again from their checkpoints. The figures must equal the
// ones the training's own final evaluation recorded (same checkpoint, same sets, same sweeps),
// other lengths and tasks must land in the store as eval rows of the run, and bad input must
// fail with the documented exit code and a message naming the argument.
#include <cmath>
#include <map>
#include <tuple>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;

namespace {

using Key = std::tuple<std::string, int64_t, std::string>;  // (task, seq_len, metric)

std::map<Key, double> eval_map(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  std::map<Key, double> out;
  for (const auto& e : s.evals(run)) out[{e.task, e.seq_len, e.metric}] = e.value;
  return out;
}

size_t eval_count(const std::string& store, int64_t run) {
  return pha::store::Store::open(store).evals(run).size();
}

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

json mqar_project() {
  return {{"name", "mqar-eval"},
          {"data",
           {{"kind", "task"},
            {"train", {{"task", "mqar"}, {"seq_len", 16}, {"num_kv_pairs", 2}, {"vocab_size", 32},
                       {"num_examples", 1000}, {"seed", 3}}},
            {"test", {{{"name", "heldout"}, {"task", "mqar"}, {"seq_len", 16}, {"num_kv_pairs", 2},
                       {"vocab_size", 32}, {"num_examples", 200}, {"seed", 13}}}}}},
          {"model", pha::test::TempProject::tiny_model()},
          {"training",
           {{"steps", 8}, {"batch_size", 8}, {"lr", 0.003}, {"warmup_steps", 2}, {"eval_every", 0},
            {"mixer_every", 4}, {"seed", 1}, {"threads", 1}}},
          {"variants", {"pha"}}};
}

TEST(CliEval, TextRunReproducesTheFinalEvaluationAndRecordsOtherLengths) {
  pha::test::TempProject p;
  p.write_project(p.text_project());  // final_eval_tokens 512, seq_len 32, batch 2
  const std::string dir = quoted(p.dir());
  CliResult r = run_cli("--threads 1 train --quiet " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto trained = eval_map(p.store(), 1);
  ASSERT_TRUE(trained.count({"valid", 32, "perplexity"})) << "the training's final evaluation is missing";
  const size_t rows_before = eval_count(p.store(), 1);

  // Same checkpoint, same windows: exactly the training's figures (CPU is deterministic); the
  // rows are replaced, not duplicated.
  r = run_cli("--threads 1 eval --project " + dir + " --run 1 --tokens 512");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("perplexity"), std::string::npos) << r.output;
  // loss, perplexity, bpb and their standard errors over the windows, for valid and test.
  EXPECT_NE(r.output.find("recorded 12 evaluation rows"), std::string::npos) << r.output;
  const auto again = eval_map(p.store(), 1);
  EXPECT_EQ(eval_count(p.store(), 1), rows_before);
  for (const char* split : {"valid", "test"})
    for (const char* metric : {"loss", "perplexity", "bpb", "loss_se", "perplexity_se", "bpb_se"}) {
      const Key k{split, 32, metric};
      ASSERT_TRUE(trained.count(k)) << split << " " << metric;
      EXPECT_NEAR(again.at(k), trained.at(k), 1e-5 * std::max(1.0, trained.at(k))) << split << " " << metric;
    }

  // Other window lengths: new rows at T = 16 and 64 (the Compare dock's length chart reads
  // rows with seq_len > 0), validation split only; JSON output.
  r = run_cli("--threads 1 eval --project " + dir + " --run test --split valid --lengths 16,64 --tokens 256 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output.substr(r.output.find('{')));
  ASSERT_EQ(j["rows"].size(), 2u) << j.dump();
  EXPECT_EQ(j["rows"][0]["set"], "valid");
  EXPECT_EQ(j["rows"][0]["seq_len"], 16);
  EXPECT_EQ(j["rows"][1]["seq_len"], 64);
  EXPECT_EQ(j["step"], 6);
  EXPECT_EQ(j["recorded"], 12);
  const auto after = eval_map(p.store(), 1);
  EXPECT_EQ(after.size(), again.size() + 12);
  // 256 tokens at T 16 are 16 windows: the standard error of bpb over them is a positive figure
  // well below bpb itself.
  EXPECT_GT(after.at({"valid", 16, "bpb_se"}), 0.0);
  EXPECT_LT(after.at({"valid", 16, "bpb_se"}), 0.5 * after.at({"valid", 16, "bpb"}));
  EXPECT_GT(after.at({"valid", 16, "perplexity"}), 1.0);
  EXPECT_DOUBLE_EQ(after.at({"valid", 64, "bpb"}), j["rows"][1]["bpb"].get<double>());
  EXPECT_TRUE(std::isfinite(after.at({"valid", 64, "loss"})));

  // --no-record leaves the store as it was.
  r = run_cli("--threads 1 eval --project " + dir + " --run 1 --split test --tokens 128 --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("nothing recorded"), std::string::npos) << r.output;
  EXPECT_EQ(eval_map(p.store(), 1).size(), after.size());
}

TEST(CliEval, TaskRunAccuracyLengthSweepAndAnotherTask) {
  pha::test::TempProject p;
  p.write_project(mqar_project());
  const std::string dir = quoted(p.dir());
  CliResult r = run_cli("--threads 1 train --quiet " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto trained = eval_map(p.store(), 1);
  ASSERT_TRUE(trained.count({"heldout", 16, "accuracy"}));

  // The run's held-out set again (equal to the training's figure), the length sweep at the
  // lengths MQAR can be made at with V = 32 (T must be even and below V), by run name.
  r = run_cli("--threads 1 eval --store " + quoted(p.dir() / "runs.sqlite") +
              " --run pha --lengths 8,16,24,31 --sweep-examples 64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("skipped: length T=31"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("must be even"), std::string::npos) << r.output;
  const auto ev = eval_map(p.store(), 1);
  for (const char* metric : {"accuracy", "macro_accuracy", "exact_match"})
    EXPECT_DOUBLE_EQ(ev.at({"heldout", 16, metric}), trained.at({"heldout", 16, metric})) << metric;
  for (int T : {8, 16, 24}) {
    ASSERT_TRUE(ev.count({"length", T, "accuracy"})) << "T=" << T;
    EXPECT_GE(ev.at({"length", T, "accuracy"}), 0.0);
    EXPECT_LE(ev.at({"length", T, "accuracy"}), 1.0);
  }
  EXPECT_FALSE(ev.count({"length", 31, "accuracy"}));
  // The sweep at T = 16 is the training distribution (other held-out sequences): an accuracy
  // within sampling noise of the held-out set's.
  EXPECT_NEAR(ev.at({"length", 16, "accuracy"}), ev.at({"heldout", 16, "accuracy"}), 0.2);

  // Another task: the run's own task with 3 pairs (other parameters kept), under a label.
  r = run_cli("--threads 1 eval --project " + dir + " --run 1 --task mqar --set num_kv_pairs=3 --label kv3 "
              "--examples 100 --sweeps none --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output.substr(r.output.find('{')));
  ASSERT_EQ(j["rows"].size(), 1u) << j.dump();
  EXPECT_EQ(j["rows"][0]["set"], "kv3");
  EXPECT_EQ(j["rows"][0]["seq_len"], 16);
  EXPECT_EQ(j["rows"][0]["sequences"], 100);
  EXPECT_EQ(j["rows"][0]["counted"], 300) << "3 queries per sequence";
  EXPECT_TRUE(eval_map(p.store(), 1).count({"kv3", 16, "accuracy"}));
}

TEST(CliEval, SweepsReproduceTheTrainingsLengthAndOodRows) {
  // Selective copying on binary content (bits_p 0.5), trained with both sweeps: `pha eval`
  // with its defaults (length sweep; OOD sweep because the task is in binary mode) must give
  // exactly the rows the training's final evaluation wrote (same seed + 10, same counts).
  pha::test::TempProject p;
  const json project = {
      {"name", "copy-eval"},
      {"data",
       {{"kind", "task"},
        {"train", {{"task", "selective_copy"}, {"seq_len", 24}, {"seq_len_min", 12}, {"vocab_size", 8},
                   {"num_tokens_to_copy", 4}, {"bits_p", 0.5}, {"num_examples", 2000}, {"seed", 2}}},
        {"sweeps", {"length", "ood"}}}},
      {"model", pha::test::TempProject::tiny_model()},
      {"training",
       {{"steps", 6}, {"batch_size", 8}, {"lr", 0.003}, {"warmup_steps", 2}, {"eval_every", 0},
        {"sweep_examples", 48}, {"mixer_every", 3}, {"seed", 1}, {"threads", 1}}}};
  p.write_project(project);
  const std::string dir = quoted(p.dir());
  CliResult r = run_cli("--threads 1 train --quiet " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto trained = eval_map(p.store(), 1);

  r = run_cli("--threads 1 eval --project " + dir + " --run 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output.substr(r.output.find('{')));
  EXPECT_TRUE(j["skipped"].empty()) << j.dump();
  int length_rows = 0, ood_rows = 0;
  for (const auto& row : j["rows"]) {
    const std::string set = row["set"];
    const int64_t T = row["seq_len"];
    length_rows += row["kind"] == "length";
    ood_rows += row["kind"] == "ood";
    for (const char* metric : {"accuracy", "macro_accuracy", "exact_match"}) {
      const Key k{set, T, metric};
      ASSERT_TRUE(trained.count(k)) << set << " T=" << T << " " << metric << " was not recorded by the training";
      EXPECT_DOUBLE_EQ(row[metric].get<double>(), trained.at(k)) << set << " T=" << T << " " << metric;
    }
  }
  EXPECT_EQ(length_rows, 6) << "T in {50, 75, 100, 150, 200, 400}";
  EXPECT_EQ(ood_rows, 4) << "p in {0.1, 0.3, 0.7, 0.9}";
  EXPECT_EQ(j["rows"].size(), 11u) << "the held-out set, 6 lengths, 4 OOD points";
  EXPECT_EQ(eval_map(p.store(), 1).size(), trained.size()) << "the same points again: replaced, not added";

  r = run_cli("--threads 1 eval --project " + dir + " --run 1 --sweeps none --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(json::parse(r.output.substr(r.output.find('{')))["rows"].size(), 1u);
}

TEST(CliEval, BadInputNamesTheArgumentWithTheDocumentedExitCode) {
  pha::test::TempProject p;
  p.write_project(mqar_project());
  const std::string dir = quoted(p.dir());
  // No store yet: bad input (3), naming the file.
  CliResult r = run_cli("eval --project " + dir + " --run 1");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("runs.sqlite"), std::string::npos) << r.output;
  ASSERT_EQ(run_cli("--threads 1 train --quiet " + dir).exit_code, 0);
  const size_t rows = eval_count(p.store(), 1);

  struct Case {
    std::string args;
    int code;
    std::string names;
  };
  const std::vector<Case> cases = {
      {"--run 99", 3, "--run"},
      {"--run nosuchrun", 3, "--run"},
      {"--run 1 --split valid", 3, "--split"},                         // a task run has no text splits
      {"--run 1 --task mqar --set vocab_size=4096", 3, "--task"},      // more ids than the model has
      {"--run 1 --task mqar --set seq_len=15", 3, "--task.seq_len"},   // MQAR needs an even T
      {"--run 1 --task nosuchtask", 3, "--task.task"},
      {"--run 1 --sweeps ood", 3, "--sweeps"},                         // MQAR has no binary inputs
      {"--run 1 --step 5", 3, "--step"},                               // no checkpoint at step 5
      {"--run 1 --checkpoint /nonexistent.safetensors", 3, "/nonexistent.safetensors"},
      {"--run 1 --sweeps sideways", 2, "--sweeps"},
      {"--run 1 --set seq_len=32", 2, "--set"},                        // --set without --task
      {"--run 1 --task mqar --set seq_len", 2, "--set"},
      {"--run 1 --split bogus", 2, "--split"},
      {"", 2, "--run"},
  };
  for (const auto& c : cases) {
    r = run_cli("--threads 1 eval --project " + dir + " " + c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.names), std::string::npos) << c.args << "\n" << r.output;
  }
  EXPECT_EQ(eval_count(p.store(), 1), rows) << "a failed evaluation records nothing";
}

}  // namespace
