// One evaluation path: the rows a training run's final evaluation records are exactly the rows
// `pha eval` (runtime::evaluate_run) gives on the run's last checkpoint with no options (same
// sets, T, metrics and values), for a text run and for a task run with a length sweep; the
// options still change the plan (another length, the OOD sweep asked for).
#include <map>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "runtime/job.h"
#include "runtime/run_eval.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

using Key = std::tuple<int64_t, std::string, int64_t, std::string>;  // (step, set, T, metric)

std::map<Key, double> as_map(const std::vector<pha::store::EvalRow>& rows) {
  std::map<Key, double> out;
  for (const auto& r : rows) EXPECT_TRUE(out.emplace(Key{r.step, r.task, r.seq_len, r.metric}, r.value).second);
  return out;
}

int64_t train(const pha::test::TempProject& p) {
  RunObserver quiet;
  RunControl ctl;
  const JobResult r = run_job(pha::test::job_spec(p), quiet, ctl);
  EXPECT_EQ(r.status, JobStatus::Finished) << r.reason;
  return r.run_id;
}

// The final evaluation's rows, and evaluate_run's on the last checkpoint (recording nothing).
void expect_same_rows(const pha::test::TempProject& p, int64_t run, size_t expected_rows) {
  const auto trained = as_map(pha::store::Store::open(p.store()).evals(run));
  RunEvalOptions o;
  o.record = false;
  const pha::runtime::RunEvalResult r = evaluate_run(p.store(), run, o);
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
  const auto again = as_map(eval_rows(r));
  EXPECT_EQ(trained.size(), expected_rows);
  EXPECT_EQ(again, trained) << "pha eval on the last checkpoint must give the final evaluation's rows, exactly";
}

TEST(Evaluation, TextRunFinalEvaluationEqualsEvaluateRunOnItsLastCheckpoint) {
  pha::test::TempProject p;
  p.write_project(p.text_project());  // final_eval_tokens 512 (not the whole split), seq_len 32
  const int64_t run = train(p);
  expect_same_rows(p, run, 12);  // valid and test x loss, perplexity, bpb, each with its standard error

  // Options still apply to the same plan: another window length, the validation split only.
  RunEvalOptions o;
  o.record = false;
  o.splits = {"valid"};
  o.lengths = {16};
  const pha::runtime::RunEvalResult r = evaluate_run(p.store(), run, o);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].set, "valid");
  EXPECT_EQ(r.rows[0].seq_len, 16);
  EXPECT_EQ(r.rows[0].tokens, 512) << "training.final_eval_tokens is the plan's default";
  o.max_tokens = 0;  // --tokens 0: the whole split
  const pha::runtime::RunEvalResult whole = evaluate_run(p.store(), run, o);
  ASSERT_EQ(whole.rows.size(), 1u);
  EXPECT_GT(whole.rows[0].tokens, 512);
}

TEST(Evaluation, TaskRunWithLengthSweepFinalEvaluationEqualsEvaluateRun) {
  // Binary selective copying with only the length sweep: the OOD sweep is possible but the run
  // did not ask for it, so pha eval's default (the run's plan) must not add it either.
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 3}, {"eval_every", 2}, {"eval_examples", 8}, {"sweep_examples", 12},
                           {"batch_size", 4}});
  j["data"] = {{"kind", "task"},
               {"train", {{"task", "selective_copy"}, {"seq_len", 24}, {"seq_len_min", 12}, {"vocab_size", 8},
                          {"num_tokens_to_copy", 4}, {"bits_p", 0.5}, {"num_examples", 500}, {"seed", 2}}},
               {"test", {{{"name", "copy_test"}, {"task", "selective_copy"}, {"seq_len", 24}, {"vocab_size", 8},
                          {"num_tokens_to_copy", 4}, {"bits_p", 0.5}, {"num_examples", 20}, {"seed", 12}}}},
               {"sweeps", {"length"}}};
  p.write_project(j);
  const int64_t run = train(p);
  expect_same_rows(p, run, 4 * (1 + 6));  // the held-out set, T in {50, ..., 400}; 3 metrics + accuracy_se each

  RunEvalOptions o;
  o.record = false;
  o.ood_sweep = true;
  o.length_sweep = false;
  const pha::runtime::RunEvalResult r = evaluate_run(p.store(), run, o);
  std::set<std::string> sets;
  for (const auto& row : r.rows) sets.insert(row.set);
  EXPECT_EQ(sets, (std::set<std::string>{"copy_test", "selective_copy_bits_p0.1", "selective_copy_bits_p0.3",
                                         "selective_copy_bits_p0.7", "selective_copy_bits_p0.9"}));
}

}  // namespace
