// Round trips through the writer and the readers: runs, metrics and summaries, mixer
// snapshots, perf, evals, checkpoints, tags, rename, delete, status semantics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;

namespace {
ps::NewRun make_run(const std::string& name, const std::string& project = "proj") {
  ps::NewRun r;
  r.project = project;
  r.name = name;
  r.variant = "pha-hybrid";
  r.config_json = R"({"model":{"layers":4}})";
  r.config_hash = "abc123";
  r.n_params = 4242;
  r.device = "cpu";
  return r;
}
}  // namespace

TEST(StoreRecords, CreateRunStartsQueued) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("first"));
  auto r = store.get_run(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, ps::RunStatus::Queued);
  EXPECT_EQ(r->name, "first");
  EXPECT_EQ(r->config_json, R"({"model":{"layers":4}})");
  EXPECT_EQ(r->config_hash, "abc123");
  EXPECT_EQ(r->n_params, 4242);
  EXPECT_GT(r->created_at, 0);
  EXPECT_EQ(r->started_at, 0);
  EXPECT_FALSE(store.get_run(id + 100));
}

TEST(StoreRecords, MetricsAndSummariesRoundTrip) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  store.define_metric_key("val/acc", ps::Goal::Maximize);
  std::int64_t id = store.create_run(make_run("m"));
  const double vals[] = {3.0, 2.5, 2.7, 1.9, 2.2, 1.9, 2.0};  // min 1.9 first at step 30
  {
    ps::RunWriter w(store, id);
    auto info = store.get_run(id);
    EXPECT_EQ(info->status, ps::RunStatus::Running);
    EXPECT_EQ(info->pid, static_cast<std::int64_t>(getpid()));
    for (int i = 0; i < 7; ++i) w.metric("train/loss", i * 10, i * 1000, i * 5, vals[i]);
    const double acc[] = {0.1, 0.4, 0.35, 0.4};  // max 0.4 first at step 100
    for (int i = 0; i < 4; ++i) w.metric("val/acc", i * 100, i * 10000, i * 50, acc[i]);
    w.finish(ps::RunStatus::Finished);
  }
  auto loss = store.summary(id, "train/loss");
  ASSERT_TRUE(loss);
  EXPECT_DOUBLE_EQ(loss->last, 2.0);
  EXPECT_DOUBLE_EQ(loss->min, 1.9);
  EXPECT_DOUBLE_EQ(loss->max, 3.0);
  EXPECT_EQ(loss->best_step, 30);
  EXPECT_EQ(loss->last_step, 60);
  EXPECT_EQ(loss->count, 7);
  auto acc = store.summary(id, "val/acc");
  ASSERT_TRUE(acc);
  EXPECT_EQ(acc->best_step, 100);
  EXPECT_DOUBLE_EQ(acc->max, 0.4);
  EXPECT_DOUBLE_EQ(acc->last, 0.4);

  auto full = store.read_metric_full(id, "train/loss");
  ASSERT_EQ(full.size(), 7u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(full[i].step, i * 10);
    EXPECT_EQ(full[i].tokens, i * 1000);
    EXPECT_EQ(full[i].wall_ms, i * 5);
    EXPECT_DOUBLE_EQ(full[i].value, vals[i]);
  }
  EXPECT_EQ(store.metric_keys(id), (std::vector<std::string>{"train/loss", "val/acc"}));
  auto run = store.get_run(id);
  EXPECT_EQ(run->status, ps::RunStatus::Finished);
  EXPECT_GT(run->ended_at, 0);
  EXPECT_GE(run->ended_at, run->started_at);
}

TEST(StoreRecords, SummaryAcrossFlushesAndNaN) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("nan"));
  ps::RunWriter w(store, id);
  w.metric("loss", 0, 0, 0, 4.0);
  w.metric("loss", 1, 1, 1, 1.0);
  w.flush();
  w.metric("loss", 2, 2, 2, 7.0);
  w.flush();
  w.metric("loss", 3, 3, 3, std::numeric_limits<double>::quiet_NaN());
  w.finish(ps::RunStatus::Diverged, "loss is NaN at step 3");
  auto s = store.summary(id, "loss");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 4);
  EXPECT_TRUE(std::isnan(s->last));
  EXPECT_DOUBLE_EQ(s->min, 1.0);
  EXPECT_DOUBLE_EQ(s->max, 7.0);
  EXPECT_EQ(s->best_step, 1);
  auto full = store.read_metric_full(id, "loss");
  ASSERT_EQ(full.size(), 4u);
  EXPECT_TRUE(std::isnan(full[3].value));
  auto run = store.get_run(id);
  EXPECT_EQ(run->status, ps::RunStatus::Diverged);
  EXPECT_EQ(run->error, "loss is NaN at step 3");
}

TEST(StoreRecords, RewindAfterResumeReplacesLaterSteps) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("resume"));
  {
    ps::RunWriter w(store, id);
    for (int s = 0; s < 500; ++s) w.metric("loss", s, s, s, s == 450 ? 100.0 : 1.0);
  }  // destroyed without finish: interrupted
  EXPECT_EQ(store.get_run(id)->status, ps::RunStatus::Interrupted);
  {
    ps::RunWriter w(store, id);  // resumed from a checkpoint at step 300
    for (int s = 300; s < 600; ++s) w.metric("loss", s, s, s, 2.0);
    w.finish(ps::RunStatus::Finished);
  }
  auto full = store.read_metric_full(id, "loss");
  ASSERT_EQ(full.size(), 600u);
  EXPECT_DOUBLE_EQ(full[299].value, 1.0);
  EXPECT_DOUBLE_EQ(full[450].value, 2.0);  // the old spike is gone
  auto s = store.summary(id, "loss");
  EXPECT_EQ(s->count, 600);
  EXPECT_DOUBLE_EQ(s->max, 2.0);
  EXPECT_EQ(s->best_step, 0);
  double top = 0;
  for (const auto& b : store.read_metric(id, "loss", 5)) top = std::max(top, b.max);
  EXPECT_DOUBLE_EQ(top, 2.0);  // rollups were rebuilt too
}

TEST(StoreRecords, MixerPerfEvalsCheckpointsRoundTrip) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("rec"));
  std::vector<float> w0(6 * 3);
  for (std::size_t i = 0; i < w0.size(); ++i) w0[i] = 1.0f / static_cast<float>(i + 3);
  w0[4] = std::numeric_limits<float>::denorm_min();
  std::vector<float> w1(w0.rbegin(), w0.rend());
  {
    ps::RunWriter w(store, id);
    w.mixer({10, 6, 3, w0});
    w.mixer({20, 6, 3, w1});
    EXPECT_THROW(w.mixer({30, 6, 3, std::vector<float>(17)}), pha::core::Error);
    w.perf({1024, 8, 12345.5, 987654321, "cuda:0", "train", "median of 20 after 3 warm-up"});
    w.eval({20, "mqar", 256, "accuracy", 0.875});
    w.eval({20, "mqar", 512, "accuracy", 0.5});
    w.checkpoint({20, "checkpoints/run1/step20.safetensors", 1 << 20, std::string(64, 'a')});
    w.finish(ps::RunStatus::Finished);
  }
  EXPECT_EQ(store.mixer_steps(id), (std::vector<std::int64_t>{10, 20}));
  auto m = store.read_mixer(id, 10);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->layers, 6);
  EXPECT_EQ(m->branches, 3);
  ASSERT_EQ(m->weights.size(), w0.size());
  EXPECT_EQ(std::memcmp(m->weights.data(), w0.data(), w0.size() * sizeof(float)), 0);
  auto all = store.read_mixer_all(id);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(std::memcmp(all[1].weights.data(), w1.data(), w1.size() * sizeof(float)), 0);
  EXPECT_FALSE(store.read_mixer(id, 15));

  auto perf = store.perf(id);
  ASSERT_EQ(perf.size(), 1u);
  EXPECT_EQ(perf[0].seq_len, 1024);
  EXPECT_EQ(perf[0].batch, 8);
  EXPECT_DOUBLE_EQ(perf[0].tokens_per_s, 12345.5);
  EXPECT_EQ(perf[0].peak_bytes, 987654321);
  EXPECT_EQ(perf[0].device, "cuda:0");
  EXPECT_EQ(perf[0].method, "median of 20 after 3 warm-up");
  auto evals = store.evals(id);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[1].seq_len, 512);
  EXPECT_DOUBLE_EQ(evals[0].value, 0.875);
  auto ck = store.checkpoints(id);
  ASSERT_EQ(ck.size(), 1u);
  EXPECT_EQ(ck[0].path, "checkpoints/run1/step20.safetensors");
  EXPECT_EQ(ck[0].bytes, 1 << 20);
}

TEST(StoreRecords, RecordEvalsOnAFinishedRunReplacesTheSamePoint) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("done"));
  {
    ps::RunWriter w(store, id);
    w.eval({100, "test", 64, "accuracy", 0.25});
    w.finish(ps::RunStatus::Finished);
  }
  // Later evaluation of the finished run: the status stays, new points are added, a point
  // evaluated again (same step, task, T, metric) keeps only the newest value.
  store.record_evals(id, {{100, "length", 50, "accuracy", 0.5}, {100, "length", 100, "accuracy", 0.125}});
  store.record_evals(id, {{100, "length", 50, "accuracy", 0.75}, {100, "test", 64, "accuracy", 0.875}});
  EXPECT_EQ(store.get_run(id)->status, ps::RunStatus::Finished);
  const auto evals = store.evals(id);
  ASSERT_EQ(evals.size(), 3u);
  EXPECT_EQ(evals[0].task, "length");
  EXPECT_EQ(evals[0].seq_len, 50);
  EXPECT_DOUBLE_EQ(evals[0].value, 0.75);
  EXPECT_EQ(evals[1].seq_len, 100);
  EXPECT_DOUBLE_EQ(evals[1].value, 0.125);
  EXPECT_EQ(evals[2].task, "test");
  EXPECT_DOUBLE_EQ(evals[2].value, 0.875);
  EXPECT_THROW(store.record_evals(id + 100, {{1, "test", 64, "accuracy", 1.0}}), pha::core::Error);
  EXPECT_EQ(store.evals(id).size(), 3u);
}

TEST(StoreRecords, ListRunsWithSummaries) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(store.create_run(make_run("r" + std::to_string(i), i < 3 ? "a" : "b")));
    if (i == 4) continue;  // run 4 stays queued, no metrics
    ps::RunWriter w(store, ids.back());
    w.metric("loss", 0, 0, 0, 10.0 + i);
    w.metric("loss", 1, 1, 1, 1.0 + i);
    if (i % 2 == 0) w.metric("val", 1, 1, 1, 0.5 * i);
    w.finish(ps::RunStatus::Finished);
  }
  ps::RunListQuery q;
  q.summary_keys = {"val", "loss", "never-written"};
  auto all = store.list_runs(q);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all.front().run.id, ids.back());  // newest first
  EXPECT_TRUE(all.front().run.config_json.empty());
  for (const auto& e : all) {
    ASSERT_EQ(e.summaries.size(), 3u);
    int i = static_cast<int>(std::find(ids.begin(), ids.end(), e.run.id) - ids.begin());
    EXPECT_FALSE(e.summaries[2]);
    if (i == 4) {
      EXPECT_FALSE(e.summaries[0]);
      EXPECT_FALSE(e.summaries[1]);
      EXPECT_EQ(e.run.status, ps::RunStatus::Queued);
      continue;
    }
    ASSERT_TRUE(e.summaries[1]);
    EXPECT_EQ(e.summaries[1]->key, "loss");
    EXPECT_DOUBLE_EQ(e.summaries[1]->last, 1.0 + i);
    EXPECT_DOUBLE_EQ(e.summaries[1]->max, 10.0 + i);
    EXPECT_EQ(static_cast<bool>(e.summaries[0]), i % 2 == 0);
    if (e.summaries[0]) {
      EXPECT_DOUBLE_EQ(e.summaries[0]->last, 0.5 * i);
    }
  }
  q.project = "a";
  q.newest_first = false;
  q.include_config = true;
  auto a = store.list_runs(q);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a.front().run.id, ids.front());
  EXPECT_EQ(a.front().run.config_json, R"({"model":{"layers":4}})");
  EXPECT_EQ(store.list_runs().size(), 5u);
}

TEST(StoreRecords, RunKindIsStoredAndFilters) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const std::int64_t train = store.create_run(make_run("profile: looks like one"));  // default kind: train
  ps::NewRun p = make_run("pha-tiny");
  p.kind = ps::RunKind::Profile;
  const std::int64_t profile = store.create_run(p);
  EXPECT_EQ(store.get_run(train)->kind, ps::RunKind::Train);
  EXPECT_EQ(store.get_run(profile)->kind, ps::RunKind::Profile);

  ps::RunListQuery q;
  q.kind = ps::RunKind::Profile;
  auto profiles = store.list_runs(q);
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].run.id, profile);
  EXPECT_EQ(profiles[0].run.kind, ps::RunKind::Profile);
  q.kind = ps::RunKind::Train;
  q.project = "proj";
  auto trains = store.list_runs(q);
  ASSERT_EQ(trains.size(), 1u);
  EXPECT_EQ(trains[0].run.id, train);
  q.project = "elsewhere";
  EXPECT_TRUE(store.list_runs(q).empty()) << "project and kind filters combine";
  EXPECT_EQ(store.list_runs().size(), 2u);

  EXPECT_STREQ(ps::to_string(ps::RunKind::Profile), "profile");
  EXPECT_EQ(ps::run_kind_from_string("train"), ps::RunKind::Train);
  try {
    ps::run_kind_from_string("eval-only");
    FAIL() << "accepted an unknown kind";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "runs.kind");
    EXPECT_NE(std::string(e.what()).find("allowed: train, profile"), std::string::npos) << e.what();
  }
}

TEST(StoreRecords, RenameTagsNotesDelete) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t keep = store.create_run(make_run("keep"));
  std::int64_t gone = store.create_run(make_run("gone"));
  {
    ps::RunWriter w(store, gone);
    for (int s = 0; s < 300; ++s) w.metric("loss", s, s, s, 1.0);
    w.mixer({1, 1, 2, {0.5f, 0.5f}});
    w.finish(ps::RunStatus::Cancelled);
  }
  store.rename_run(keep, "renamed");
  EXPECT_EQ(store.get_run(keep)->name, "renamed");
  store.set_notes(keep, "baseline");
  EXPECT_EQ(store.get_run(keep)->notes, "baseline");
  store.add_tag(keep, "paper");
  store.add_tag(keep, "baseline");
  store.add_tag(keep, "paper");
  EXPECT_EQ(store.tags(keep), (std::vector<std::string>{"baseline", "paper"}));
  store.remove_tag(keep, "paper");
  EXPECT_EQ(store.tags(keep), (std::vector<std::string>{"baseline"}));

  store.delete_run(gone);
  EXPECT_FALSE(store.get_run(gone));
  EXPECT_TRUE(store.read_metric_full(gone, "loss").empty());
  EXPECT_TRUE(store.read_metric(gone, "loss", 10).empty());
  EXPECT_FALSE(store.summary(gone, "loss"));
  EXPECT_TRUE(store.mixer_steps(gone).empty());
  EXPECT_EQ(store.integrity_check(), "ok");
  EXPECT_THROW(store.delete_run(gone), pha::core::Error);
  EXPECT_THROW(store.rename_run(gone, "x"), pha::core::Error);
  EXPECT_THROW(store.set_status(gone, ps::RunStatus::Failed), pha::core::Error);
}

TEST(StoreRecords, StatusSemantics) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("s"));
  store.set_status(id, ps::RunStatus::Cancelled, "cancelled while queued");
  auto r = store.get_run(id);
  EXPECT_EQ(r->status, ps::RunStatus::Cancelled);
  EXPECT_EQ(r->error, "cancelled while queued");
  EXPECT_GT(r->ended_at, 0);
  EXPECT_EQ(ps::run_status_from_string("interrupted"), ps::RunStatus::Interrupted);
  EXPECT_THROW(ps::run_status_from_string("paused"), pha::core::Error);
  ps::RunWriter w(store, id);
  EXPECT_THROW(w.finish(ps::RunStatus::Running), pha::core::Error);
  EXPECT_THROW(w.metric("loss", -1, 0, 0, 1.0), pha::core::Error);
  w.finish(ps::RunStatus::Failed, "out of memory");
  r = store.get_run(id);
  EXPECT_EQ(r->status, ps::RunStatus::Failed);
  EXPECT_EQ(r->error, "out of memory");
}

TEST(StoreRecords, ChangingAKeyGoalRecomputesBestStep) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t id = store.create_run(make_run("g"));
  {
    ps::RunWriter w(store, id);
    w.metric("acc", 0, 0, 0, 0.2);
    w.metric("acc", 1, 1, 1, 0.9);
    w.metric("acc", 2, 2, 2, 0.5);
    w.finish(ps::RunStatus::Finished);
  }
  EXPECT_EQ(store.summary(id, "acc")->best_step, 0);  // default goal: minimize
  store.define_metric_key("acc", ps::Goal::Maximize);
  EXPECT_EQ(store.summary(id, "acc")->best_step, 1);
}
