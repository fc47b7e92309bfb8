// Schema v7: each run's provenance (runs.env_json: what produced its numbers, docs/store.md
// "Provenance"), the v6 -> v7 migration of older stores, and restarting a run in place (a search
// rung run cancelled before its first checkpoint is trained again under the same id).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/provenance_fields.h"
#include "store/run_manage.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;

TEST(StoreProvenance, ARunRecordsItsProvenanceAndListingsReadItBack) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  ps::NewRun nr;
  nr.project = "p";
  nr.name = "bf16-run";
  nr.env_json = R"({"precision":"bf16","precision.setting":"auto","kernels":"fused"})";
  const auto a = store.create_run(nr);
  ps::NewRun old = nr;
  old.name = "no-record";
  old.env_json.clear();
  const auto b = store.create_run(old);
  EXPECT_EQ(store.get_run(a)->env_json, nr.env_json);
  EXPECT_EQ(store.get_run(b)->env_json, "{}") << "an empty record is stored as an empty object";
  ps::RunListQuery q;
  q.newest_first = false;
  const auto runs = store.list_runs(q);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run.env_json, nr.env_json);
  const auto fields = pha::core::provenance_fields(runs[0].run.env_json);
  EXPECT_EQ(fields.at("precision"), "bf16");
  EXPECT_EQ(fields.at("kernels"), "fused");
  EXPECT_TRUE(pha::core::provenance_fields(runs[1].run.env_json).empty());

  store.set_env(b, R"({"precision":"fp32"})");
  EXPECT_EQ(pha::core::provenance_fields(store.get_run(b)->env_json).at("precision"), "fp32");
  EXPECT_THROW(store.set_env(999, "{}"), pha::core::Error);
}

TEST(StoreProvenance, KeysThatChangeNumbersAreTold) {
  for (const char* k : {"precision", "kernels", "threads.intra_op", "blas.core", "torch.version", "program.commit"})
    EXPECT_TRUE(pha::core::provenance_key_changes_numbers(k)) << k;
  for (const char* k : {"precision.reason", "host", "blas.library", "cpu.flags"})
    EXPECT_FALSE(pha::core::provenance_key_changes_numbers(k)) << k;
  EXPECT_TRUE(pha::core::provenance_fields("not json").empty());
  EXPECT_EQ(pha::core::provenance_fields(R"({"world_size": 2})").at("world_size"), "2");
}

// tests/engine/store/data/store-v4.sqlite, migrated to the current version: its runs recorded no provenance.
TEST(StoreProvenance, RunsOfOlderStoresHaveAnEmptyRecord) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  std::filesystem::copy_file(PHA_STORE_FIXTURES "/store-v4.sqlite", path);
  ps::Store store = ps::Store::open(path);
  EXPECT_EQ(store.schema_version(), ps::Store::kSchemaVersion);
  for (const auto& e : store.list_runs()) EXPECT_EQ(e.run.env_json, "{}") << e.run.name;
}

TEST(StoreProvenance, ACancelledRunIsEmptiedForATrainingFromTheStartUnderItsId) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  ps::NewRun nr;
  nr.project = "p";
  nr.name = "search:pha/t1@4";
  nr.config_json = R"({"model":{"d_model":32}})";
  nr.group = "search:pha/t1@4";
  nr.seed = 7;
  nr.env_json = R"({"precision":"fp32"})";
  const auto id = store.create_run(nr);
  {
    ps::RunWriter w(store, id, {});
    w.metric("train/loss", 1, 64, 10, 5.5);
    w.eval({1, "valid", 32, "bpb", 7.0});
    w.mixer({1, 1, 3, {0.3f, 0.3f, 0.4f}});
    w.checkpoint({1, dir.file("gone.safetensors"), 10, "abc"});
    w.finish(ps::RunStatus::Cancelled, "cancelled at step 1");
  }
  store.add_tag(id, "kept");
  store.set_notes(id, "kept too");
  ps::restart_run(store, id, R"({"precision":"bf16"})");
  const auto r = store.get_run(id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, ps::RunStatus::Queued);
  EXPECT_EQ(r->started_at, 0);
  EXPECT_EQ(r->ended_at, 0);
  EXPECT_EQ(r->error, "");
  EXPECT_EQ(r->env_json, R"({"precision":"bf16"})");
  EXPECT_EQ(r->name, nr.name);
  EXPECT_EQ(r->config_json, nr.config_json);
  EXPECT_EQ(r->seed, 7);
  EXPECT_TRUE(store.metric_keys(id).empty());
  EXPECT_TRUE(store.evals(id).empty());
  EXPECT_TRUE(store.mixer_steps(id).empty());
  EXPECT_TRUE(store.checkpoints(id).empty());
  EXPECT_EQ(store.tags(id), std::vector<std::string>{"kept"});
  EXPECT_EQ(r->notes, "kept too");
  EXPECT_EQ(store.list_runs().size(), 1u);
}

TEST(StoreProvenance, OnlyACancelledOrInterruptedRunIsRestarted) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  ps::NewRun nr;
  nr.project = "p";
  nr.name = "done";
  const auto id = store.create_run(nr);
  {
    ps::RunWriter w(store, id, {});
    w.metric("train/loss", 1, 64, 10, 5.5);
    w.finish(ps::RunStatus::Finished);
  }
  try {
    ps::restart_run(store, id, "{}");
    FAIL() << "a finished run was restarted";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is finished"), std::string::npos) << e.what();
  }
  EXPECT_EQ(store.get_run(id)->status, ps::RunStatus::Finished);
  EXPECT_EQ(store.metric_keys(id).size(), 1u) << "a refused restart changed the run";
  EXPECT_THROW(ps::restart_run(store, 12345, "{}"), pha::core::Error);
}
