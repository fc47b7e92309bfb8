// `pha search` end to end on a tiny model: the rung runs land in the store as training runs,
// --jobs 2 decides exactly as --jobs 1, kill -9 mid-rung then a rerun loses and duplicates
// nothing, --plan / --status / --report / --promote (docs/search.md).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "project/project.h"
#include "search_runner/search_job.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/search_store.h"
#include "store/store.h"

extern char** environ;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// 4 trials (lr x pattern) at rungs 4 and 12 steps (eta 3): 4 runs, then 1.
json search_project(const pha::test::TempProject& p) {
  json j = p.text_project({{"steps", 12}, {"warmup_steps", 1}, {"eval_every", 2}, {"final_eval_tokens", 256}});
  j["search"] = {{"space", {{"training.lr", {0.001, 0.01}}}},
                 {"patterns", {{"list", json::array({json::array({"gss", "attn"}), json::array({"attn", "gss"})})}}},
                 {"budget", {{"resource", "steps"}, {"min", 4}, {"max", 12}, {"eta", 3}}},
                 {"objective", "val/bpb"},
                 {"threads", 1}};
  return j;
}

struct Decided {
  std::string decision;
  std::string values;
  bool operator==(const Decided& o) const { return decision == o.decision && values == o.values; }
};

std::map<std::string, Decided> decisions(const pha::test::TempProject& p) {
  auto s = pha::store::Store::open(p.store());
  std::map<std::string, Decided> out;
  for (const auto& r : pha::store::search_decisions(s, "test"))
    out[r.search + ":" + std::to_string(r.rung) + ":" + std::to_string(r.trial)] = {r.decision, r.values_json};
  return out;
}

std::multiset<std::string> finished_run_names(const pha::test::TempProject& p) {
  auto s = pha::store::Store::open(p.store());
  std::multiset<std::string> names;
  for (const auto& e : s.list_runs())
    if (e.run.status == pha::store::RunStatus::Finished) names.insert(e.run.name);
  return names;
}

TEST(SearchCli, JobsOneAndJobsTwoTrainTheSameTrialsAndDecideAlike) {
  pha::test::TempProject a, b;
  a.write_project(search_project(a));
  b.write_project(search_project(b));
  const CliResult r1 = run_cli("search --quiet '" + a.dir().string() + "'");
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  const CliResult r2 = run_cli("search --quiet --jobs 2 '" + b.dir().string() + "'");
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  const auto d1 = decisions(a), d2 = decisions(b);
  ASSERT_EQ(d1.size(), 5u) << r1.output;  // 4 trials at rung 0, 1 at rung 1
  // The same trials, decisions and values, bit for bit: a run computes the same numbers alone or
  // beside others, on a quiet machine or a loaded one (auto precision comes from the machine's
  // stored calibration, not a timing per process: docs/search.md, "Determinism").
  std::string differ;
  for (const auto& [k, d] : d1) {
    const auto it = d2.find(k);
    if (it == d2.end()) {
      differ += k + ": only with --jobs 1\n";
      continue;
    }
    if (!(d == it->second)) differ += k + ": " + d.decision + " " + d.values + " vs " + it->second.decision + " " + it->second.values + "\n";
  }
  EXPECT_EQ(d1.size(), d2.size());
  EXPECT_TRUE(differ.empty()) << differ << r1.output << "\n---\n" << r2.output;
  int promoted = 0;
  for (const auto& [k, d] : d1) promoted += d.decision == "promoted";
  EXPECT_EQ(promoted, 1);
  EXPECT_EQ(finished_run_names(a), finished_run_names(b));
  EXPECT_EQ(finished_run_names(a).size(), 5u);
  EXPECT_NE(r1.output.find("| 1 | t"), std::string::npos) << "the leaderboard\n" << r1.output;

  // Rerun: everything is reused, nothing trained again.
  const CliResult again = run_cli("search --quiet '" + a.dir().string() + "'");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("0 rung run(s) trained now, 5 found finished in the store"), std::string::npos)
      << again.output;
  EXPECT_EQ(finished_run_names(a).size(), 5u);

  const CliResult plan = run_cli("search --plan '" + a.dir().string() + "'");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("complete"), std::string::npos) << plan.output;

  const CliResult report = run_cli("search --report --format json '" + a.dir().string() + "'");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const json rj = json::parse(report.output);
  EXPECT_TRUE(rj["complete"].get<bool>());
  const json& board = rj["searches"][0]["leaderboard"];
  ASSERT_EQ(board.size(), 4u);
  EXPECT_EQ(board[0]["state"], "finished");
  EXPECT_EQ(board[1]["state"], "stopped");
  EXPECT_NE(board[1]["why"].get<std::string>().find("rank"), std::string::npos) << board.dump();
  // The rung chart's history: the winner has a point at each rung (4, 12 steps), a stopped trial one.
  ASSERT_EQ(board[0]["history"].size(), 2u) << board[0].dump();
  EXPECT_EQ(board[0]["history"][0]["resource"], 4);
  EXPECT_EQ(board[0]["history"][0]["state"], "promoted");
  EXPECT_EQ(board[0]["history"][1]["resource"], 12);
  EXPECT_EQ(board[0]["history"][1]["mean"], board[0]["mean"]);
  ASSERT_EQ(board[1]["history"].size(), 1u) << board[1].dump();
  EXPECT_EQ(board[1]["history"][0]["state"], "stopped");
  EXPECT_EQ(board[1]["history"][0]["mean"].size(), 1u);

  // --promote adds the winner as a variant that loads and trains like any other.
  const std::string winner = "test:t" + std::to_string(board[0]["trial"].get<int>());
  const CliResult prom = run_cli("search --promote " + winner + " --name best '" + a.dir().string() + "'");
  ASSERT_EQ(prom.exit_code, 0) << prom.output;
  const auto project = pha::project::load_project(a.dir().string());
  bool found = false;
  for (const auto& run : project.runs) found = found || run.name == "best";
  EXPECT_TRUE(found) << prom.output;
}

// `pha search --repeat 2` (issue 39): two searches with their own seeds against the grid trained
// at the full budget; every pick ranked in the grid with its regret and compute; the grid's runs
// double as the searches' last-rung runs of the first seed; a rerun trains nothing.
TEST(SearchCli, RepeatTwoSearchesAgainstTheGrid) {
  pha::test::TempProject p;
  json j = search_project(p);
  j["search"]["seeds"] = 2;
  j["search"]["promotion"] = {{"rule", "not_worse"}, {"alpha", 0.05}};
  p.write_project(j);
  const std::string out = (p.dir() / "repeats.json").string();
  const CliResult r = run_cli("search --repeat 2 --format json --out '" + out + "' '" + p.dir().string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const json rep = json::parse(in);
  ASSERT_EQ(rep["studies"].size(), 1u) << rep.dump(1);
  const json& st = rep["studies"][0];
  EXPECT_EQ(st["grid"].size(), 4u);
  EXPECT_DOUBLE_EQ(st["grid_compute"].get<double>(), 4 * 12.0);
  ASSERT_EQ(st["repeats"].size(), 2u);
  EXPECT_EQ(st["repeats"][0]["seeds"], (json{7, 8}));
  EXPECT_EQ(st["repeats"][1]["seeds"], (json{9, 10}));
  int top2 = 0;
  for (const json& x : st["repeats"]) {
    const int rank = x["grid_rank"].get<int>();
    EXPECT_GE(rank, 1);
    EXPECT_LE(rank, 4);
    top2 += rank <= 2;
    EXPECT_GE(x["regret"].get<double>(), 0.0);
    EXPECT_EQ(rank == 1, x["regret"].get<double>() == 0.0) << x.dump();
    // Rung 0: 4 trials x 2 seeds x 4 steps; rung 1 trains 12 steps per run, continuing rung 0's
    // stable phase (the warmup of 1 step is absolute): 12 - 3 = 9 extra steps each.
    ASSERT_EQ(x["rungs"].size(), 2u);
    const json& last = x["rungs"][1];
    const double finalist_runs = static_cast<double>(last["trials"].size()) * last["seeds"].get<int>();
    EXPECT_DOUBLE_EQ(x["compute"].get<double>(), 32.0 + 9.0 * finalist_runs) << x.dump();
    EXPECT_EQ(last["seeds"].get<int>(), last["trials"].size() > 1 ? 2 : 1) << "a lone finalist decides nothing";
    EXPECT_EQ(x["rungs"][0]["trials"].size(), 4u);
  }
  EXPECT_DOUBLE_EQ(st["top2_rate"].get<double>(), top2 / 2.0);
  EXPECT_TRUE(st["seed_sd"].is_number()) << "pooled over rung 0's replicas";
  EXPECT_EQ(st["per_rung"][0]["df"], 2 * 4);
  EXPECT_GT(rep["runs_trained"].get<int>(), 0);
  // The grid's runs (seed 7 at 12 steps) are the first repeat's last-rung runs: none twice.
  std::map<std::string, int> names;
  for (const auto& n : finished_run_names(p)) names[n]++;
  for (const auto& [n, count] : names) EXPECT_EQ(count, 1) << n;
  int grid_runs = 0;
  for (const auto& [n, count] : names) grid_runs += n.find("@12,seed=7") != std::string::npos;
  EXPECT_EQ(grid_runs, 4);

  const CliResult again = run_cli("search --repeat 2 '" + p.dir().string() + "'");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("\n0 rung run(s) trained now"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("pick in the grid's top 2: " + std::to_string(top2) + " of 2"), std::string::npos)
      << again.output;
  const CliResult bad = run_cli("search --repeat 0 '" + p.dir().string() + "'");
  EXPECT_NE(bad.exit_code, 0);
  // Without a grid there is nothing to judge the picks against.
  j["search"]["space"]["training.lr"] = {{"log_uniform", {0.001, 0.01}}};
  j["search"]["sampler"] = {{"kind", "random"}, {"seed", 1}, {"trials", 4}};
  p.write_project(j);
  const CliResult ranges = run_cli("search --repeat 2 '" + p.dir().string() + "'");
  EXPECT_EQ(ranges.exit_code, 3) << ranges.output;
  EXPECT_NE(ranges.output.find("search.space.training.lr: is a range; --repeat compares with the exhaustive grid"),
            std::string::npos)
      << ranges.output;
}

TEST(SearchCli, PlanPrintsTheRunnableRungRunsAndOnlyTrainsOne) {
  pha::test::TempProject p;
  p.write_project(search_project(p));
  const CliResult plan = run_cli("search --plan '" + p.dir().string() + "'");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  size_t lines = 0;
  std::string first;
  std::istringstream in(plan.output);
  for (std::string line; std::getline(in, line);)
    if (line.find("--only") != std::string::npos) {
      if (first.empty()) first = line.substr(line.find("--only' ") + 8);
      ++lines;
    }
  EXPECT_EQ(lines, 4u) << plan.output;  // rung 0's four runs
  // The status plans the whole ladder before anything is decided: 4 trials at 4 steps, 1 at 12.
  const auto ladder = pha::search_runner::search_status(p.dir().string()).rungs;
  ASSERT_EQ(ladder.size(), 2u);
  EXPECT_EQ(ladder[0].rung, 0);
  EXPECT_DOUBLE_EQ(ladder[0].resource, 4.0);
  EXPECT_EQ(ladder[0].trials, 4);
  EXPECT_EQ(ladder[1].rung, 1);
  EXPECT_DOUBLE_EQ(ladder[1].resource, 12.0);
  EXPECT_EQ(ladder[1].trials, 1);
  first = first.substr(0, first.find(' '));
  if (!first.empty() && first.front() == '\'') first = first.substr(1, first.size() - 2);
  const CliResult one = run_cli("search --quiet --only " + first + " '" + p.dir().string() + "'");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(finished_run_names(p).size(), 1u);
  // Its trial reads "trained" with its measured value until the rung is decided; the others pending.
  const int trained_trial = pha::search_runner::SearchJobId::parse(first).trial;
  for (const auto& t : pha::search_runner::search_status(p.dir().string()).trials) {
    if (t.trial == trained_trial) {
      EXPECT_EQ(t.state, "trained") << t.why;
      ASSERT_EQ(t.mean.size(), 1u);
      EXPECT_TRUE(std::isfinite(t.mean[0]));
      EXPECT_NE(t.why.find("awaiting the rung's decision"), std::string::npos) << t.why;
      EXPECT_EQ(t.run_ids.size(), 1u);
    } else {
      EXPECT_EQ(t.state, "pending") << t.trial;
      EXPECT_TRUE(t.mean.empty()) << t.trial;
    }
  }
  const CliResult bad = run_cli("search --only nonsense '" + p.dir().string() + "'");
  EXPECT_EQ(bad.exit_code, 3) << bad.output;
  EXPECT_NE(bad.output.find("--only"), std::string::npos) << bad.output;
}

// The first rung may be shorter than the base variant's warmup when every trial sets its own
// (issue 36: 15 / 45 steps with warmups [4, 8] beside a base warmup of 25); `--plan` checks
// what load_project checks, and a trial that truly cannot fit is refused by its values.
TEST(SearchCli, PlanAcceptsRungsShorterThanTheBaseWarmupWhenEveryTrialSetsItsOwn) {
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 45}, {"warmup_steps", 25}});
  j["search"] = {{"space", {{"training.lr", {0.001, 0.003}}, {"training.warmup_steps", {4, 8}}}},
                 {"budget", {{"resource", "steps"}, {"min", 15}, {"max", 45}, {"eta", 3}}},
                 {"objective", "val/bpb"},
                 {"threads", 1}};
  p.write_project(j);
  const CliResult plan = run_cli("search --plan '" + p.dir().string() + "'");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  size_t lines = 0;
  std::istringstream in(plan.output);
  for (std::string line; std::getline(in, line);) lines += line.find("--only") != std::string::npos;
  EXPECT_EQ(lines, 4u) << plan.output;
  j["search"]["space"]["training.warmup_steps"] = {4, 25};
  p.write_project(j);
  const CliResult refused = run_cli("search --plan '" + p.dir().string() + "'");
  EXPECT_EQ(refused.exit_code, 3) << refused.output;
  EXPECT_NE(refused.output.find("search.budget.min: 15 steps gives trial t1 of \"test\" (lr=0.001,warmup_steps=25)"),
            std::string::npos)
      << refused.output;
}

// Deleting a decided rung's run (a stopped trial's, from the run table) keeps the search decided
// and trains nothing again; a renamed rung run is still the search's; the store says which run
// is which trial's (issue 36). Recorded decisions that the runs in the store contradict (the
// objective changed) are not taken.
TEST(SearchCli, DeletedOrRenamedRungRunsKeepTheSearchDecided) {
  pha::test::TempProject p;
  json j = search_project(p);
  p.write_project(j);
  const std::string dir = p.dir().string();
  const CliResult r = run_cli("search --quiet '" + dir + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::int64_t stopped_run = 0, winner_run = 0;
  int stopped_trial = -1;
  {
    auto s = pha::store::Store::open(p.store());
    for (const auto& row : pha::store::search_decisions(s, "test")) {
      const json ids = json::parse(row.runs_json);
      ASSERT_EQ(ids.size(), 1u);
      if (row.decision == "stopped" && stopped_run == 0) {
        stopped_run = ids[0].get<std::int64_t>();
        stopped_trial = row.trial;
      }
      if (row.decision == "finished") winner_run = ids[0].get<std::int64_t>();
    }
    ASSERT_GT(stopped_run, 0);
    ASSERT_GT(winner_run, 0);
    const auto roles = pha::store::search_run_roles(s, "test");
    ASSERT_EQ(roles.size(), 5u);
    EXPECT_EQ(roles.at(winner_run).decision, "finished");
    EXPECT_EQ(roles.at(stopped_run).text,
              "search test, trial " + std::to_string(stopped_trial) + " (" + roles.at(stopped_run).label + "), rung 0: stopped");

    // Renamed in the run table, with the decisions forgotten: the runs alone still decide it.
    s.rename_run(winner_run, "the winner");
    s.rename_run(stopped_run, "a loser");
    pha::store::clear_search_decisions(s, "test", "test");
    // No row names them now: the rung runs' group says which trial and budget they measured.
    const auto by_name = pha::store::search_run_roles(s, "test");
    ASSERT_EQ(by_name.size(), 5u);
    EXPECT_EQ(by_name.at(stopped_run).trial, stopped_trial);
    EXPECT_EQ(by_name.at(stopped_run).text,
              "search test, trial " + std::to_string(stopped_trial) + ", budget 4: not decided yet");
  }
  {
    const auto status = pha::search_runner::search_status(dir);
    EXPECT_TRUE(status.complete) << pha::search_runner::search_report(status, "md");
    const CliResult again = run_cli("search --quiet '" + dir + "'");
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("0 rung run(s) trained now, 5 found finished in the store"), std::string::npos)
        << again.output;
    auto s = pha::store::Store::open(p.store());
    EXPECT_EQ(pha::store::search_run_roles(s, "test").at(stopped_run).decision, "stopped") << "recorded again";
  }

  // The stopped trial's run deleted: still complete, the trial still stopped with its value.
  pha::store::Store::open(p.store()).delete_run(stopped_run);
  const auto status = pha::search_runner::search_status(dir);
  EXPECT_TRUE(status.complete) << pha::search_runner::search_report(status, "md");
  int trials = 0;
  for (const auto& t : status.trials) {
    ++trials;
    if (t.trial != stopped_trial) continue;
    EXPECT_EQ(t.state, "stopped");
    ASSERT_EQ(t.mean.size(), 1u);
    EXPECT_TRUE(std::isfinite(t.mean[0]));
    EXPECT_NE(t.why.find("rank"), std::string::npos) << t.why;
    EXPECT_TRUE(t.run_ids.empty()) << "the deleted run is not offered to Compare";
  }
  EXPECT_EQ(trials, 4);
  const CliResult shown = run_cli("search --status '" + dir + "'");
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("Complete."), std::string::npos) << shown.output;
  const CliResult resumed = run_cli("search --quiet '" + dir + "'");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("0 rung run(s) trained now, 4 found finished in the store"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(finished_run_names(p).size(), 4u);
  EXPECT_EQ(decisions(p).size(), 5u);
  {
    auto s = pha::store::Store::open(p.store());
    EXPECT_EQ(pha::store::search_run_roles(s, "test").size(), 4u);
  }

  // Another objective: the rows' values are no longer what the runs measure, so the rung with
  // the deleted run is not decided from them.
  j["search"]["objective"] = "val/loss";
  p.write_project(j);
  const auto changed = pha::search_runner::search_status(dir);
  EXPECT_FALSE(changed.complete);
  for (const auto& t : changed.trials)
    if (t.trial == stopped_trial) { EXPECT_EQ(t.state, "pending"); }
  const CliResult plan = run_cli("search --plan '" + dir + "'");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find(":t" + std::to_string(stopped_trial) + ":r0:"), std::string::npos) << plan.output;
}

TEST(SearchCli, KillMinus9MidRungThenRerunLosesAndDuplicatesNothing) {
  pha::test::TempProject p;
  json j = search_project(p);
  j["training"]["steps"] = 120;
  j["training"]["eval_every"] = 10;
  j["search"]["budget"] = {{"resource", "steps"}, {"min", 40}, {"max", 120}, {"eta", 3}};
  p.write_project(j);
  std::vector<std::string> args = {PHA_CLI_PATH, "search", "--quiet", p.dir().string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, PHA_CLI_PATH, nullptr, nullptr, argv.data(), environ), 0);
  // Kill it once the second rung-0 run has a checkpoint (mid-run, mid-rung).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(4);
  bool mid = false;
  while (!mid && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!fs::exists(p.store())) continue;
    pha::store::OpenOptions o;
    o.recover_interrupted = false;
    auto s = pha::store::Store::open(p.store(), o);
    const auto runs = s.list_runs();
    if (runs.size() >= 2 && runs.front().run.status == pha::store::RunStatus::Running &&
        !s.checkpoints(runs.front().run.id).empty())
      mid = true;
  }
  ASSERT_TRUE(mid) << "the search never reached its second run";
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  {
    auto s = pha::store::Store::open(p.store());
    EXPECT_EQ(s.integrity_check(), "ok");
    for (const auto& e : s.list_runs()) EXPECT_NE(e.run.status, pha::store::RunStatus::Running) << e.run.name;
  }
  const CliResult r = run_cli("search --quiet '" + p.dir().string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto names = finished_run_names(p);
  EXPECT_EQ(names.size(), 5u) << r.output;
  for (const auto& n : names) EXPECT_EQ(names.count(n), 1u) << n << " finished twice";
  EXPECT_EQ(decisions(p).size(), 5u);
  for (const auto& e : s.list_runs()) EXPECT_NE(e.run.status, pha::store::RunStatus::Running) << e.run.name;
}

// --nproc 2: every rung run is data parallel (rank 0 here, rank 1 a `pha __train-rank` worker
// that rebuilds the rung run's plan from its SearchJobId); the global batch is the same, so the
// search makes the same decisions as one process, its values within data-parallel tolerance.
TEST(SearchCli, NprocTwoTrainsEveryRungRunDataParallelAndDecidesAsOneProcess) {
  pha::test::TempProject one, two;
  one.write_project(search_project(one));
  two.write_project(search_project(two));
  const CliResult a = run_cli("search --quiet '" + one.dir().string() + "'");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const CliResult b = run_cli("search --quiet --nproc 2 '" + two.dir().string() + "'");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  // The same decisions; the recorded objective values within data-parallel tolerance.
  const auto d1 = decisions(one), d2 = decisions(two);
  ASSERT_EQ(d1.size(), 5u) << a.output;
  ASSERT_EQ(d2.size(), 5u) << b.output;
  for (const auto& [key, d] : d1) {
    ASSERT_TRUE(d2.count(key)) << key;
    EXPECT_EQ(d.decision, d2.at(key).decision) << key << "\n" << a.output << "\n---\n" << b.output;
    const auto numbers = [](const std::string& text) {  // every number of the values, flattened
      std::vector<double> out;
      const std::function<void(const json&)> walk = [&](const json& j) {
        if (j.is_number()) out.push_back(j.get<double>());
        for (const auto& e : j.is_structured() ? j : json::array()) walk(e);
      };
      walk(json::parse(text));
      return out;
    };
    const auto v1 = numbers(d.values), v2 = numbers(d2.at(key).values);
    ASSERT_EQ(v1.size(), v2.size()) << key;
    ASSERT_FALSE(v1.empty()) << key;
    for (size_t i = 0; i < v1.size(); ++i) EXPECT_NEAR(v1[i], v2[i], 1e-3) << key;
  }
  EXPECT_EQ(finished_run_names(one), finished_run_names(two));
  auto sa = pha::store::Store::open(one.store());
  auto sb = pha::store::Store::open(two.store());
  std::map<std::string, double> loss;
  for (const auto& e : sa.list_runs()) loss[e.run.name] = sa.summary(e.run.id, "val/loss")->last;
  const auto runs = sb.list_runs();
  ASSERT_EQ(runs.size(), 5u);
  for (const auto& e : runs) {
    EXPECT_EQ(e.run.world_size, 2) << e.run.name;
    EXPECT_EQ(e.run.status, pha::store::RunStatus::Finished) << e.run.name;
    const auto v = sb.summary(e.run.id, "val/loss");
    ASSERT_TRUE(v.has_value()) << e.run.name;
    EXPECT_NEAR(v->last, loss.at(e.run.name), 1e-3) << e.run.name;
  }
  EXPECT_EQ(sb.integrity_check(), "ok");
}

}  // namespace
