// The project queue (project/project_queue.h): which runs, in which order, and the "profile
// after the runs" policy the CLI and the window share.
#include <gtest/gtest.h>

#include "core/error.h"
#include "project/project.h"
#include "project/project_queue.h"
#include "queue/work_queue.h"
#include "runtime/local_parallel.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

json two_runs_with_profile(const pha::test::TempProject& p, bool after_runs) {
  json j = p.text_project();
  j["variants"] = {"pha", "transformer"};
  j["profile"] = {{"seq_lens", {16}}, {"after_runs", after_runs}};
  return j;
}

std::vector<std::string> describe(const std::vector<pha::project::QueueItem>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i.kind == pha::project::QueueItemKind::Profile ? "<profile>" : i.run);
  return out;
}

TEST(ProjectQueue, RunsInProjectOrderThenTheProfileAfterACompletePass) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, true));
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  const auto items = pha::project::project_queue(project, {});
  EXPECT_EQ(describe(items), (std::vector<std::string>{"pha", "transformer", "<profile>"}));
  EXPECT_TRUE(items.back().after_finished_runs);

  // The profile follows only when every run before it finished; runs are never skipped.
  EXPECT_EQ(pha::project::skip_reason(items.back(), 0), "");
  EXPECT_NE(pha::project::skip_reason(items.back(), 1).find("1 run of the queue did not finish"), std::string::npos);
  EXPECT_EQ(pha::project::skip_reason(items[1], 1), "");

  pha::project::QueueOptions no_profile;
  no_profile.profile = false;  // --no-profile
  EXPECT_EQ(describe(pha::project::project_queue(project, no_profile)), (std::vector<std::string>{"pha", "transformer"}));
  pha::project::QueueOptions chosen;
  chosen.runs = {"transformer"};  // a partial pass measures nothing
  EXPECT_EQ(describe(pha::project::project_queue(project, chosen)), (std::vector<std::string>{"transformer"}));
}

TEST(ProjectQueue, NoProfileWithoutAfterRunsOrWithoutASection) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, false));
  EXPECT_EQ(pha::project::project_queue(pha::project::load_project(p.dir().string()), {}).size(), 2u);
  p.write_project(p.text_project());
  const auto items = pha::project::project_queue(pha::project::load_project(p.dir().string()), {});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, pha::project::QueueItemKind::Train);
}

TEST(ProjectQueue, ResumeNamesItsRunFromTheStoreAndUnknownNamesAreErrors) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, true));
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  int64_t id = 0;
  {
    auto s = pha::store::Store::open(project.store_path());
    pha::store::NewRun nr;
    nr.name = "transformer";
    s.create_run(nr);
    id = s.create_run(nr);
  }
  pha::project::QueueOptions resume;
  resume.resume_run_id = id;
  const auto items = pha::project::project_queue(project, resume);
  ASSERT_EQ(items.size(), 1u) << "resuming trains that run only, and no profile";
  EXPECT_EQ(items[0].run, "transformer");
  EXPECT_EQ(items[0].resume_run_id, id);

  resume.resume_run_id = 99;
  EXPECT_THROW(pha::project::project_queue(project, resume), pha::core::Error);
  pha::project::QueueOptions unknown;
  unknown.runs = {"nosuchrun"};
  try {
    pha::project::project_queue(project, unknown);
    FAIL() << "accepted an unknown run";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchrun"), std::string::npos) << e.what();
  }
}

// ---- the engine's one work queue (queue/work_queue.h), what `pha train` and the window drive ----

TEST(WorkQueue, OneRuleShortensARunAndTheWindowsStepsOverrideFollowsIt) {
  pha::project::TrainingConfig t;
  t.steps = 450;
  t.warmup_steps = 25;
  EXPECT_EQ(pha::queue::shortened_training(t, 10), (json{{"steps", 10}, {"warmup_steps", 1}})) << "warmup longer than the run: a tenth";
  EXPECT_EQ(pha::queue::shortened_training(t, 100), (json{{"steps", 100}})) << "a warmup that fits is kept";
  EXPECT_THROW(pha::queue::shortened_training(t, 0), pha::core::Error);

  pha::queue::QueueSettings s;
  s.training_overrides = {{"steps", 20}, {"lr", 0.01}};  // the window's Training tab
  EXPECT_EQ(pha::queue::training_overrides_for(s, t), (json{{"steps", 20}, {"warmup_steps", 2}, {"lr", 0.01}}));
  s.training_overrides = {{"steps", 20}, {"warmup_steps", 5}};  // an explicit warmup wins
  EXPECT_EQ(pha::queue::training_overrides_for(s, t), (json{{"steps", 20}, {"warmup_steps", 5}}));
  pha::queue::QueueSettings cli;
  cli.steps = 12;  // `pha train --steps 12`
  EXPECT_EQ(pha::queue::training_overrides_for(cli, t), (json{{"steps", 12}, {"warmup_steps", 1}}));
  EXPECT_EQ(pha::queue::training_overrides_for(pha::queue::QueueSettings{}, t), json::object());
}

TEST(WorkQueue, APassSaysWhereItIsPlansShortenedStepsAndSkipsTheProfileAfterAnUnfinishedRun) {
  pha::test::TempProject p;
  p.write_project(two_runs_with_profile(p, true));
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  pha::queue::QueueSettings settings;
  settings.steps = 4;
  pha::queue::WorkQueue q(settings);
  q.add_project(project, {});
  pha::queue::QueuePosition pos = q.position();
  EXPECT_EQ(pos.runs, 2);
  EXPECT_EQ(pos.run, 0);
  EXPECT_EQ(pos.pending_steps, 8) << "two runs shortened to 4 steps";
  EXPECT_TRUE(pos.profile_next);

  auto first = q.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->run, "pha");
  EXPECT_EQ(first->planned_steps, 4);
  EXPECT_EQ(first->training_overrides, (json{{"steps", 4}}));
  pos = q.position();
  EXPECT_EQ(pos.run, 1);
  EXPECT_EQ(pos.runs, 2);
  ASSERT_EQ(pos.next.size(), 2u);
  EXPECT_EQ(pos.next[0].run, "transformer");
  EXPECT_EQ(pos.pending_steps, 4);
  pha::queue::QueueItemResult failed;  // e.g. diverged
  failed.status = "diverged";
  q.ended(*first, failed);
  EXPECT_EQ(q.unfinished(), 1);

  auto second = q.next();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->run, "transformer");
  EXPECT_EQ(q.position().run, 2);
  pha::queue::QueueItemResult ok;
  ok.status = "finished";
  q.ended(*second, ok);
  std::vector<std::pair<pha::project::QueueItem, std::string>> skipped;
  EXPECT_FALSE(q.next(&skipped)) << "the profile does not follow an incomplete pass";
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].first.kind, pha::project::QueueItemKind::Profile);
  EXPECT_NE(skipped[0].second.find("1 run of the queue did not finish"), std::string::npos) << skipped[0].second;

  // A new pass starts its counts again: now every run finishes and the profile is next.
  q.add_project(project, {});
  for (int i = 0; i < 2; ++i) {
    auto item = q.next();
    ASSERT_TRUE(item);
    EXPECT_EQ(q.position().run, i + 1);
    q.ended(*item, ok);
  }
  auto profile = q.next();
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->kind, pha::project::QueueItemKind::Profile);
  EXPECT_EQ(q.position().run, 0) << "the profile is not a training run";
  q.clear();
}

TEST(WorkQueue, RunsATrainingItemShortenedAndEndsBadInputAsFailedWithoutThrowing) {
  pha::test::TempProject p;
  p.write_project(p.text_project());
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  pha::queue::QueueSettings settings;
  settings.steps = 3;
  settings.threads = 1;
  pha::queue::WorkQueue q(settings);
  q.add_project(project, {});
  auto item = q.next();
  ASSERT_TRUE(item);
  pha::search_runner::SearchObserver quiet;
  RunControl control;
  const pha::queue::QueueItemResult r = pha::queue::run_queue_item(*item, q.settings(), quiet, control);
  EXPECT_EQ(r.status, "finished") << r.reason;
  EXPECT_EQ(r.steps_done, 3);
  EXPECT_GT(r.run_id, 0);
  {
    auto s = pha::store::Store::open(project.store_path());
    const auto info = s.get_run(r.run_id);
    ASSERT_TRUE(info);
    EXPECT_EQ(json::parse(info->config_json)["training"]["steps"], 3) << "the shortened run is what was stored";
  }

  pha::project::QueueItem unknown = *item;  // made by hand: no plan, a name the project lacks
  unknown.run = "nosuchrun";
  unknown.plan.reset();
  const pha::queue::QueueItemResult bad = pha::queue::run_queue_item(unknown, q.settings(), quiet, control);
  EXPECT_EQ(bad.status, "failed");
  EXPECT_NE(bad.reason.find("nosuchrun"), std::string::npos) << bad.reason;
  EXPECT_TRUE(bad.error);
  EXPECT_EQ(bad.run_id, 0);

  pha::project::QueueItem eval;
  eval.kind = pha::project::QueueItemKind::Evaluate;
  eval.project = project.store_path();
  eval.eval_run_id = 999;
  const pha::queue::QueueItemResult no_run = pha::queue::run_queue_item(eval, q.settings(), quiet, control);
  EXPECT_EQ(no_run.status, "failed");
  EXPECT_FALSE(no_run.reason.empty());

  pha::project::QueueItem search;
  search.kind = pha::project::QueueItemKind::Search;
  search.project = p.dir().string();
  const pha::queue::QueueItemResult no_section = pha::queue::run_queue_item(search, q.settings(), quiet, control);
  EXPECT_EQ(no_section.status, "failed") << "a project without a search section";
  EXPECT_NE(no_section.reason.find("search"), std::string::npos) << no_section.reason;
}

TEST(WorkQueue, AProjectEditedAfterItWasQueuedTrainsWhatWasQueued) {
  // The window and `pha train` read project.json once, when the run is queued: an edit made
  // between the click and the run's start does not change what trains (QueueItem::resolved).
  pha::test::TempProject p;
  p.write_project(p.text_project({{"lr", 0.003}}));
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  pha::queue::QueueSettings settings;
  settings.steps = 2;
  settings.threads = 1;
  pha::queue::WorkQueue q(settings);
  q.add_project(project, {});
  auto item = q.next();
  ASSERT_TRUE(item);
  ASSERT_TRUE(item->resolved) << "the queue item carries the plan it was queued with";

  json edited = p.text_project({{"lr", 0.01}});
  edited["model"]["d_model"] = 48;
  p.write_project(edited);

  pha::search_runner::SearchObserver quiet;
  RunControl control;
  const pha::queue::QueueItemResult r = pha::queue::run_queue_item(*item, q.settings(), quiet, control);
  ASSERT_EQ(r.status, "finished") << r.reason;
  auto s = pha::store::Store::open(project.store_path());
  const json stored = json::parse(s.get_run(r.run_id)->config_json);
  EXPECT_DOUBLE_EQ(stored["training"]["lr"].get<double>(), 0.003) << "the queued lr trained, not the edited one";
  EXPECT_EQ(stored["model"]["d_model"], project.runs.front().model.d_model) << "the queued model trained";

  // Queued again, the run is the file as it is now.
  pha::queue::WorkQueue again(settings);
  again.add_project(pha::project::load_project(p.dir().string()), {});
  const pha::queue::QueueItemResult fresh = pha::queue::run_queue_item(*again.next(), again.settings(), quiet, control);
  ASSERT_EQ(fresh.status, "finished") << fresh.reason;
  const json now = json::parse(s.get_run(fresh.run_id)->config_json);
  EXPECT_DOUBLE_EQ(now["training"]["lr"].get<double>(), 0.01);
  EXPECT_EQ(now["model"]["d_model"], 48);
}

// One typed plan per run, resolved when it is queued: the queue's overrides (`pha train --steps`,
// the window's Training tab) are applied once, with the project's rules (mixer_lr follows lr, a
// warmup longer than the shortened run shortened with it); the trainer and a data-parallel
// worker get that plan as it is, and the store records it.
TEST(WorkQueue, ResolvesEachRunsPlanOnceWithTheOverridesAppliedAndTheTrainerTrainsIt) {
  pha::test::TempProject p;
  json j = p.text_project({{"warmup_steps", 5}});
  j["variants"] = {"pha", "transformer"};
  p.write_project(j);
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  pha::queue::QueueSettings settings;
  settings.steps = 3;
  settings.threads = 1;
  settings.training_overrides = {{"lr", 0.01}};
  pha::queue::WorkQueue q(settings);
  q.add_project(project, {});
  const pha::queue::QueuePosition pos = q.position();
  ASSERT_EQ(pos.next.size(), 2u);
  for (const pha::project::QueueItem& item : pos.next) {
    ASSERT_TRUE(item.plan) << item.run;
    const pha::project::RunPlan& base = project.run(item.run);
    EXPECT_EQ(item.plan->name, base.name);
    EXPECT_EQ(item.plan->group, base.group);
    EXPECT_EQ(item.plan->seed, base.seed);
    EXPECT_EQ(item.plan->variant, base.variant);
    EXPECT_EQ(item.plan->training.steps, 3);
    EXPECT_EQ(item.plan->training.warmup_steps, 0) << "a warmup of 5 does not fit 3 steps: a tenth of them";
    EXPECT_DOUBLE_EQ(item.plan->training.lr, 0.01);
    EXPECT_DOUBLE_EQ(item.plan->training.mixer_lr, 0.01) << "mixer_lr follows lr where the project left it at lr";
    EXPECT_EQ(item.plan->config["training"], item.plan->training.used) << "what the store will record";
    EXPECT_EQ(item.plan->config["model"], base.config["model"]);
    EXPECT_EQ(item.planned_steps, 3);
  }

  // A data-parallel worker rank receives the plan itself and reads back an equal one.
  pha::runtime::JobSpec spec;
  spec.project = p.dir().string();
  spec.resolved_project = pos.next[0].resolved;
  spec.plan = pos.next[0].plan;
  const pha::runtime::JobSpec back = pha::runtime::job_spec_from_json(pha::runtime::job_spec_to_json(spec));
  ASSERT_TRUE(back.plan);
  EXPECT_EQ(back.plan->config, spec.plan->config);
  EXPECT_EQ(pha::project::run_plan_to_json(*back.plan), pha::project::run_plan_to_json(*spec.plan));

  pha::search_runner::SearchObserver quiet;
  RunControl control;
  const pha::queue::QueueItemResult r = pha::queue::run_queue_item(*q.next(), q.settings(), quiet, control);
  ASSERT_EQ(r.status, "finished") << r.reason;
  auto s = pha::store::Store::open(project.store_path());
  EXPECT_EQ(json::parse(s.get_run(r.run_id)->config_json), pos.next[0].plan->config) << "the store records the plan";

  // An override a run refuses is an error when it is queued, naming the field; nothing is queued.
  settings.training_overrides = {{"lr", -1}};
  pha::queue::WorkQueue bad(settings);
  try {
    bad.add_project(project, {});
    ADD_FAILURE() << "a negative lr was queued";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("training.lr"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bad.position().runs, 0);
}

TEST(WorkQueue, EtaIsTheCurrentRunsRateThenTheQueuesMeanRate) {
  EXPECT_DOUBLE_EQ(pha::queue::queue_eta_seconds(0.5, 10, 0.25, 100), 5.0 + 25.0);
  EXPECT_DOUBLE_EQ(pha::queue::queue_eta_seconds(-1, 10, 0.25, 100), 2.5 + 25.0) << "the current run not measured yet";
  EXPECT_DOUBLE_EQ(pha::queue::queue_eta_seconds(0.5, 10, -1, 100), 5.0 + 50.0) << "nothing else measured: the current rate";
  EXPECT_EQ(pha::queue::queue_eta_seconds(-1, 10, -1, 100), -1) << "nothing measured";
}

}  // namespace
