// One plan of a pass for the CLI and the window (queue/pass_plan.h): for the same project and
// the same overrides, the items the window's Run queues equal what `pha train --print-queue`
// says `pha train` would train (each item's run, planned steps, training overrides, follow-up
// flag and the run's config as the plan holds it), for a whole pass with its profile and for
// "only the runs not trained yet".
#include <QElapsedTimer>
#include <QTest>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "queue/pass_plan.h"
#include "gui/queue/queue_controller.h"
#include "gui/queue/run_queue.h"
#include "store/store.h"

using namespace pha::gui;
using nlohmann::json;

namespace {

// What `pha train DIR ARGS --print-queue` prints: the JSON array after any notes.
json cli_queue(const std::string& dir, const std::string& args) {
  const CliResult r = run_cli("train " + shell_word(dir) + " " + args + " --print-queue");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto at = r.output.find("\n[") != std::string::npos ? r.output.find("\n[") + 1 : r.output.find('[');
  if (at == std::string::npos) return json();
  return json::parse(r.output.substr(at), nullptr, false);
}

// What the window queued: the item it started, then the pending ones.
json window_queue(MainWindow& w) {
  json out = json::array();
  const pha::queue::WorkQueue& work = w.queue()->work();
  if (work.current()) out.push_back(pha::queue::queue_item_json(*work.current()));
  for (const auto& item : work.position().next) out.push_back(pha::queue::queue_item_json(item));
  return out;
}

void stop(MainWindow& w) {
  w.cancelRuns();
  QElapsedTimer t;
  t.start();
  while (w.queue()->isBusy() && t.elapsed() < 120000) QTest::qWait(50);
  ASSERT_FALSE(w.queue()->isBusy());
}

}  // namespace

TEST(PassPlan, TheWindowQueuesWhatTheCliWouldTrainForTheSameProjectAndOverrides) {
  pha::test::TempProject tp;
  json j = tp.text_project({{"steps", 100000}, {"warmup_steps", 2000}});
  j["variants"] = {{{"name", "old"}}, {{"name", "new"}, {"training", {{"seed", 8}}}},
                   {{"name", "third"}, {"training", {{"lr", 0.001}}}}};
  j["profile"] = {{"seq_lens", {16}}, {"after_runs", true}};
  tp.write_project(j);
  const std::string dir = tp.dir().string();

  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(dir))) << w.lastError().toStdString();
  // The same override on both sides: the window's Training tab sets steps, `pha train --steps`.
  w.queue()->setTrainingOverrides(QString::fromStdString(json{{"steps", 1500}}.dump()));

  // A whole pass: every run, shortened alike (the warmup cut to fit), then the profile.
  const json cli_all = cli_queue(dir, "--steps 1500");
  ASSERT_TRUE(cli_all.is_array()) << cli_all.dump();
  ASSERT_EQ(cli_all.size(), 4u) << cli_all.dump(2);
  EXPECT_EQ(cli_all[0]["training_overrides"], (json{{"steps", 1500}, {"warmup_steps", 150}}));
  EXPECT_EQ(cli_all[3]["kind"], "profile");
  ASSERT_TRUE(w.queueController()->runProject(*w.session()));
  EXPECT_EQ(window_queue(w), cli_all);
  stop(w);

  // One run trained with its configuration: "only the new runs" leaves it out on both sides, and
  // both plan the tune section's follow-ups when the rest ends (no profile after a partial pass).
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.name = "old";
    nr.config_json = w.session()->runConfig("old").dump();
    const auto id = s.create_run(nr);
    s.set_status(id, pha::store::RunStatus::Running);
    s.set_status(id, pha::store::RunStatus::Finished);
  }
  const json cli_new = cli_queue(dir, "--steps 1500 --only-new");
  ASSERT_TRUE(cli_new.is_array()) << cli_new.dump();
  ASSERT_EQ(cli_new.size(), 2u) << cli_new.dump(2);
  EXPECT_EQ(cli_new[0]["run"], "new");
  EXPECT_EQ(cli_new[1]["run"], "third");
  ASSERT_TRUE(w.queueController()->runProject(*w.session(), QueueController::RepeatChoice::OnlyNew));
  EXPECT_EQ(window_queue(w), cli_new);
  stop(w);
}
