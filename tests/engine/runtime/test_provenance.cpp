// Run provenance (docs/store.md "Provenance") and repeatability: every run records what
// produced its numbers; a resumed run keeps the precision it recorded; the same run trained
// twice, once on a quiet machine and once beside busy loops, gives the same values bit for bit;
// a run cancelled before its first checkpoint is trained again in place, never as a second run.
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "busy_loops.h"
#include "core/provenance_fields.h"
#include "runtime/job.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

class QuietCancellable : public RunObserver {
 public:
  void on_step(const StepMetrics& m) override {
    if (cancel_at > 0 && m.step >= cancel_at && control) control->request_cancel();
  }
  int64_t cancel_at = 0;
  RunControl* control = nullptr;
};

// Every metric and evaluation a run recorded, as exact values.
std::map<std::string, std::vector<double>> values_of(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  std::map<std::string, std::vector<double>> out;
  for (const auto& k : s.metric_keys(run)) {
    if (k == "train/tokens_per_s" || k == "train/memory_bytes") continue;  // measured, not computed
    for (const auto& p : s.read_metric_full(run, k)) out[k].push_back(p.value);
  }
  for (const auto& e : s.evals(run)) out["eval/" + e.task + "/" + e.metric].push_back(e.value);
  for (const auto& m : s.read_mixer_all(run))
    for (float w : m.weights) out["mixer"].push_back(w);
  return out;
}

int64_t train_recorded(const pha::test::TempProject& p, int64_t cancel_at = 0) {
  QuietCancellable obs;
  RunControl ctl;
  obs.cancel_at = cancel_at;
  obs.control = &ctl;
  const JobResult r = run_job(pha::test::job_spec(p), obs, ctl);
  EXPECT_TRUE(r.status == (cancel_at > 0 ? JobStatus::Cancelled : JobStatus::Finished)) << r.reason;
  return r.run_id;
}

}  // namespace

TEST(Provenance, ARunRecordsWhatProducedItsNumbers) {
  pha::test::TempProject p;
  p.write_project(p.text_project());
  const int64_t id = train_recorded(p);
  auto s = pha::store::Store::open(p.store());
  const auto env = pha::core::provenance_fields(s.get_run(id)->env_json);
  for (const char* k : {"precision", "precision.setting", "precision.reason", "kernels", "threads.intra_op",
                        "threads.blas", "threads.policy", "blas.library", "blas.core", "torch.version", "torch.build",
                        "device", "device.name", "cpu.model", "cpu.flags", "program.version", "program.commit", "host",
                        "world_size", "backend"})
    EXPECT_TRUE(env.count(k)) << k << " missing from " << s.get_run(id)->env_json;
  EXPECT_TRUE(env.at("precision") == "fp32" || env.at("precision") == "bf16") << env.at("precision");
  EXPECT_EQ(env.at("precision.setting"), "auto");
  EXPECT_NE(env.at("precision.reason").find("auto"), std::string::npos);
  EXPECT_EQ(env.at("kernels"), "fused");
  EXPECT_EQ(env.at("threads.intra_op"), "1") << "the project asks for threads 1";
  EXPECT_EQ(env.at("device"), "cpu");
  EXPECT_NE(env.at("program.commit"), "") << "the commit is embedded at build time";
  EXPECT_NE(env.at("torch.version").find('.'), std::string::npos);
}

// A resumed run trains on in the precision it recorded, not what training.precision says now.
TEST(Provenance, AResumedRunKeepsItsRecordedPrecision) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 6}, {"eval_every", 0}, {"precision", "fp32"}}));
  const int64_t id = train_recorded(p, 2);
  {
    auto s = pha::store::Store::open(p.store());
    EXPECT_EQ(pha::core::provenance_fields(s.get_run(id)->env_json).at("precision"), "fp32");
  }
  // The project now asks for bf16; the run resumes in fp32, as it started.
  p.write_project(p.text_project({{"steps", 6}, {"eval_every", 0}, {"precision", "bf16"}}));
  QuietCancellable obs;
  RunControl ctl;
  JobSpec spec = pha::test::job_spec(p);
  spec.resume_run_id = id;
  const JobResult r = run_job(spec, obs, ctl);
  ASSERT_EQ(r.status, JobStatus::Finished) << r.reason;
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(pha::core::provenance_fields(s.get_run(id)->env_json).at("precision"), "fp32");
  EXPECT_EQ(s.list_runs().size(), 1u);
}

// The same configuration trained on a quiet machine and again beside two busy loops: every
// recorded value equal bit for bit (auto precision is a fixed rule, never a timing: docs/model.md,
// "Precision"; docs/search.md, "Determinism").
TEST(Provenance, TheSameRunRepeatsBitForBitUnderLoad) {
  pha::test::TempProject quiet, busy;
  quiet.write_project(quiet.text_project({{"steps", 8}, {"eval_every", 4}}));
  busy.write_project(busy.text_project({{"steps", 8}, {"eval_every", 4}}));
  const int64_t a = train_recorded(quiet);
  int64_t b = 0;
  {
    pha::test::BusyLoops loops(2);
    ASSERT_EQ(loops.size(), 2u);
    b = train_recorded(busy);
  }
  const auto va = values_of(quiet.store(), a), vb = values_of(busy.store(), b);
  ASSERT_FALSE(va.empty());
  EXPECT_EQ(va.size(), vb.size());
  for (const auto& [k, v] : va) {
    ASSERT_TRUE(vb.count(k)) << k;
    ASSERT_EQ(v.size(), vb.at(k).size()) << k;
    for (size_t i = 0; i < v.size(); ++i)
      if (!(std::isnan(v[i]) && std::isnan(vb.at(k)[i]))) { EXPECT_EQ(v[i], vb.at(k)[i]) << k << "[" << i << "]"; }
  }
  auto sa = pha::store::Store::open(quiet.store()), sb = pha::store::Store::open(busy.store());
  EXPECT_EQ(pha::core::provenance_fields(sa.get_run(a)->env_json).at("precision"),
            pha::core::provenance_fields(sb.get_run(b)->env_json).at("precision"));
}

// A run that ended before it wrote any checkpoint (cancelled at once) is trained again from the
// start under its own id when asked to (the search's rung runs): one run, finished, not two.
TEST(Provenance, ARunCancelledBeforeItsFirstCheckpointIsTrainedAgainInPlace) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 6}, {"eval_every", 0}}));
  QuietCancellable obs;
  RunControl ctl;
  ctl.request_cancel();  // before the first step: nothing to checkpoint
  const JobResult first = run_job(pha::test::job_spec(p), obs, ctl);
  ASSERT_EQ(first.status, JobStatus::Cancelled) << first.reason;
  {
    auto s = pha::store::Store::open(p.store());
    ASSERT_TRUE(s.checkpoints(first.run_id).empty());
  }
  RunControl again;
  JobSpec spec = pha::test::job_spec(p);
  spec.restart_run_id = first.run_id;
  const JobResult second = run_job(spec, obs, again);
  ASSERT_EQ(second.status, JobStatus::Finished) << second.reason;
  EXPECT_EQ(second.run_id, first.run_id);
  auto s = pha::store::Store::open(p.store());
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.status, pha::store::RunStatus::Finished);
  EXPECT_EQ(s.read_metric_full(first.run_id, "train/loss").size(), 6u);

  // A finished run is not trained again in place.
  RunControl third;
  spec.restart_run_id = first.run_id;
  EXPECT_THROW(run_job(spec, obs, third), pha::core::Error);
}
