// `pha train --nproc N` end to end with the real binary on loopback Gloo (docs/distributed.md):
// N processes with global batch B train like one process with batch B, rank 0 alone writes,
// a bad split is refused, a one-process checkpoint resumes on two ranks like on one; faults and
// four ranks: test_cli_distributed_faults.cpp (slow).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "cli_runner.h"
#include "../../engine/runtime/runtime_test_util.h"
#include "distributed/local_workers.h"
#include "nn/checkpoint.h"
#include "project/project.h"
#include "store/store.h"

namespace fs = std::filesystem;
using nlohmann::json;
using pha::test::TempProject;

namespace {

json training(int64_t steps) {
  // grad_accum 2 and clipping on: accumulation and the clip see the reduced gradients. fp32:
  // under bf16 the half-size matmuls round differently (about 1e-3 apart, docs/distributed.md).
  return {{"steps", steps}, {"batch_size", 4}, {"grad_accum", 2}, {"grad_clip", 0.5}, {"seq_len", 32},
          {"lr", 0.003}, {"warmup_steps", 2}, {"eval_every", 0}, {"final_eval_tokens", 256},
          {"mixer_every", 5}, {"checkpoint_every", 10}, {"seed", 3}, {"threads", 1}, {"precision", "fp32"}};
}

std::vector<double> losses(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  std::vector<double> out;
  for (const auto& p : s.read_metric_full(run, "train/loss")) out.push_back(p.value);
  return out;
}

// Run 1 of both stores has `steps` losses, equal within 1e-4 relative at every step.
void expect_same_losses(const std::string& store_a, const std::string& store_b, size_t steps) {
  const auto la = losses(store_a, 1), lb = losses(store_b, 1);
  ASSERT_EQ(la.size(), steps);
  ASSERT_EQ(lb.size(), steps);
  for (size_t i = 0; i < la.size(); ++i)
    EXPECT_LE(std::abs(la[i] - lb[i]) / std::abs(la[i]), 1e-4) << "step " << i + 1 << ": " << la[i] << " vs " << lb[i];
}

std::string last_checkpoint(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  const auto c = s.checkpoints(run);
  return c.empty() ? std::string() : c.back().path;
}

}  // namespace

TEST(CliDistributed, TwoProcessesWithGlobalBatchBTrainLikeOneProcessAndOnlyRankZeroWrites) {
  TempProject one, two;
  one.write_project(one.text_project(training(20)));
  two.write_project(two.text_project(training(20)));
  const CliResult a = run_cli("train '" + one.dir().string() + "' --no-profile --quiet");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const CliResult b = run_cli("train '" + two.dir().string() + "' --no-profile --quiet --nproc 2 --dist-timeout 60");
  ASSERT_EQ(b.exit_code, 0) << b.output;

  expect_same_losses(one.store(), two.store(), 20);

  const auto ca = pha::nn::load_checkpoint(last_checkpoint(one.store(), 1));
  const auto cb = pha::nn::load_checkpoint(last_checkpoint(two.store(), 1));
  EXPECT_EQ(ca.step, 20);
  EXPECT_EQ(cb.step, 20);
  ASSERT_EQ(ca.model.size(), cb.model.size());
  for (const auto& [name, t] : ca.model) {
    const at::Tensor& u = cb.model.at(name);
    const double diff = (t - u).abs().max().item<double>(), scale = t.abs().max().item<double>();
    EXPECT_LE(diff, 1e-4 * std::max(scale, 1e-3)) << name;
  }

  // One run, world size 2, recorded by rank 0's process; nothing else in the store or on disk.
  auto s = pha::store::Store::open(two.store());
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.world_size, 2);
  EXPECT_EQ(runs[0].run.backend, "gloo");
  EXPECT_EQ(s.get_run(1)->world_size, 2);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(b.output, m, std::regex("rank 0 of 2 \\(local 0\\) is pid (\\d+)"))) << b.output;
  EXPECT_EQ(s.get_run(1)->pid, std::stoll(m[1]));
  EXPECT_EQ(s.checkpoints(1).size(), 2u);  // steps 10 and 20, once each
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(two.dir() / "checkpoints")) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
  EXPECT_EQ(pha::store::Store::open(one.store()).get_run(1)->world_size, 1);
  const CliResult show = run_cli("runs show 1 --store '" + two.store() + "'");
  EXPECT_NE(show.output.find("processes 2 (gloo, data-parallel)"), std::string::npos) << show.output;
  const CliResult show_json = run_cli("runs show 1 --json --store '" + two.store() + "'");
  EXPECT_NE(show_json.output.find("\"world_size\": 2"), std::string::npos) << show_json.output;
  // The one-line summary is rank 0's alone.
  EXPECT_EQ(std::count(b.output.begin(), b.output.end(), '\n') - 2, std::count(a.output.begin(), a.output.end(), '\n'))
      << b.output;
}

TEST(CliDistributed, AGlobalBatchTheProcessesDoNotDivideIsRefusedNamingTheField) {
  TempProject p;
  p.write_project(p.text_project(training(4)));
  const CliResult r = run_cli("train '" + p.dir().string() + "' --no-profile --quiet --nproc 3 --dist-timeout 30");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("training.batch_size"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("multiple of 3"), std::string::npos) << r.output;
  EXPECT_TRUE(pha::store::Store::open(p.store()).list_runs().empty());
}

// The window's workers (`pha __train-rank`, runtime/local_parallel.h) get the job spec itself;
// should a rank still build another run (here: another learning rate), every rank refuses
// before the store is written, naming the cause, instead of averaging unrelated gradients.
TEST(CliDistributed, RanksThatWouldTrainDifferentRunsAllFailBeforeWriting) {
  TempProject p;
  p.write_project(p.text_project(training(6)));
  const std::string env = "MASTER_ADDR=127.0.0.1 MASTER_PORT=" +
                          std::to_string(pha::distributed::free_loopback_port()) +
                          " WORLD_SIZE=2 PHA_DIST_TIMEOUT=30 PHA_THREADS=1";
  CliResult rank0;
  std::thread lead([&] { rank0 = run_cli("train '" + p.dir().string() + "' --no-profile --quiet", env + " RANK=0"); });
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  const pha::project::RunPlan other = pha::project::with_training(project, project.runs.front(), {{"lr", 0.001}});
  const json spec = {{"project", p.dir().string()}, {"plan", pha::project::run_plan_to_json(other)}};
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult rank1 = run_cli("__train-rank '" + spec.dump() + "'", env + " RANK=1 LOCAL_RANK=1");
  lead.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(25)) << "a mismatch must not wait for the timeout";
  EXPECT_NE(rank0.exit_code, 0) << rank0.output;
  EXPECT_NE(rank1.exit_code, 0) << rank1.output;
  EXPECT_NE(rank0.output.find("the ranks would train different runs"), std::string::npos) << rank0.output;
  EXPECT_NE(rank1.output.find("rank 1 differs from rank 0"), std::string::npos) << rank1.output;
  EXPECT_TRUE(pha::store::Store::open(p.store()).list_runs().empty());
}

// A checkpoint written by one process resumes on two ranks (every rank loads the same full
// model and optimizer state) and continues exactly as resuming on one process does.
TEST(CliDistributed, ACheckpointOfOneProcessResumesOnTwoLikeResumingOnOne) {
  TempProject one, two;
  for (const TempProject* p : {&one, &two}) {
    p->write_project(p->text_project(training(20)));
    const CliResult first = run_cli("train '" + p->dir().string() + "' --no-profile --quiet --steps 10");
    ASSERT_EQ(first.exit_code, 0) << first.output;
  }
  const CliResult a = run_cli("train '" + one.dir().string() + "' --no-profile --quiet --resume 1 --steps 20");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const CliResult b =
      run_cli("train '" + two.dir().string() + "' --no-profile --quiet --resume 1 --steps 20 --nproc 2 --dist-timeout 60");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  expect_same_losses(one.store(), two.store(), 20);
  EXPECT_EQ(pha::store::Store::open(two.store()).list_runs().size(), 1u);  // resumed, not a new run
}
