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
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "project/project.h"
#include "search/runner/search_job.h"
#include "runtime_test_util.h"
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
  const auto project = pha::runtime::load_project(a.dir().string());
  bool found = false;
  for (const auto& run : project.runs) found = found || run.name == "best";
  EXPECT_TRUE(found) << prom.output;
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
  const auto ladder = pha::runtime::search_status(p.dir().string()).rungs;
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
  const CliResult bad = run_cli("search --only nonsense '" + p.dir().string() + "'");
  EXPECT_EQ(bad.exit_code, 3) << bad.output;
  EXPECT_NE(bad.output.find("--only"), std::string::npos) << bad.output;
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
