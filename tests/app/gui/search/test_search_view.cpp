// The Search dock (docs/gui.md, "Search view"), offscreen, on a tiny search project (4 trials
// of a 2-layer d-32 model at rungs of 4 and 12 steps): a search started from the view and
// cancelled mid-rung shows where it stopped; Start again completes it with no run trained
// twice, and the leaderboard's states are the store's (runtime::search_status); the rung chart
// and the layer strip follow; a trial promoted lands in project.json and the project reloads
// with it; Compare gets the selected trials' runs. The section's form writes through the
// engine's validation (a bad field is refused with its name, the file unchanged). The Pareto
// chart and the live-update merge on a synthetic summary.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <fstream>
#include <gtest/gtest.h>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/runtime/runtime_test_util.h"
#include "gui/search/layer_strip.h"
#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/queue/run_queue.h"
#include "gui/search/rung_chart.h"
#include "search_runner/search_job.h"
#include "gui/search/search_form.h"
#include "gui/search/search_leaderboard.h"
#include "gui/search/search_pareto.h"
#include "gui/search/search_state.h"
#include "gui/search/search_view.h"
#include "store/run_manage.h"
#include "store/store.h"
#include "gui/project/store_watcher.h"
#include "gui/runs/runs_model.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;
using nlohmann::json;

using pha::test::waitIdle;
using pha::test::actionNamed;

namespace {

// As tests/engine/runtime/test_search_runs.cpp: 4 trials (lr x pattern), rungs 4 and 12 steps.
json searchProject(const pha::test::TempProject& p) {
  json j = p.text_project({{"steps", 12}, {"warmup_steps", 1}, {"eval_every", 2}, {"final_eval_tokens", 256}});
  j["search"] = {{"space", {{"training.lr", {0.001, 0.01}}}},
                 {"patterns", {{"list", json::array({json::array({"gss", "attn"}), json::array({"attn", "gss"})})}}},
                 {"budget", {{"resource", "steps"}, {"min", 4}, {"max", 12}, {"eta", 3}}},
                 {"objective", "val/bpb"},
                 {"threads", 1}};
  return j;
}

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Trial id -> state, as the view's leaderboard shows it.
std::map<std::string, std::string> tableStates(const SearchLeaderboardModel& m) {
  std::map<std::string, std::string> out;
  for (int r = 0; r < m.rowCount(); ++r) {
    const auto* t = m.trialAt(r);
    out[searchTrialId(*t).toStdString()] = m.data(m.index(r, SearchLeaderboardModel::State)).toString().toStdString();
  }
  return out;
}

std::map<std::string, std::string> storeStates(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& t : pha::search_runner::search_status(dir).trials) out[searchTrialId(t).toStdString()] = t.state;
  return out;
}

}  // namespace

TEST(SearchView, StartCancelContinuePromoteAndCompare) {
  pha::test::TempProject tp;
  tp.write_project(searchProject(tp));
  const std::string dir = tp.dir().string();
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(dir))) << w.lastError().toStdString();
  SearchView* v = w.searchView();
  ASSERT_NE(v, nullptr);
  ASSERT_NE(w.findChild<QDockWidget*>("dock.search"), nullptr);
  ASSERT_TRUE(v->hasSearchSection());
  QAction* menu = actionNamed(w, "&Search...");
  ASSERT_NE(menu, nullptr);
  EXPECT_TRUE(menu->isEnabled());
  ASSERT_EQ(v->leaderboard()->rowCount(), 4);
  for (const auto& [id, state] : tableStates(*v->leaderboard())) EXPECT_EQ(state, "pending") << id;

  // Cancel as the second rung run starts: the store keeps the first; the view shows it. The
  // progress bar and the status line name the same rung run (one counter).
  bool sawRunning = false;
  QStringList counters;
  auto* bar = w.findChild<QProgressBar*>("runProgress");
  auto* line = w.findChild<QLabel*>("statusLabel");
  ASSERT_NE(bar, nullptr);
  ASSERT_NE(line, nullptr);
  auto hook = QObject::connect(w.queue(), &RunQueue::searchRunStarted, &w,
                               [&](const QString&, const QString&, const QString&, int index, int) {
                                 int running = 0;  // the view marked the trial whose run starts
                                 for (const auto& [id, state] : tableStates(*v->leaderboard())) running += state == "running";
                                 sawRunning = sawRunning || running == 1;
                                 const QString run = QString("rung run %1 of").arg(index);
                                 if (!bar->text().contains(run) || !line->text().contains(run))
                                   counters << bar->text() + " | " + line->text();
                                 if (index == 2) w.cancelRuns();
                               });
  ASSERT_TRUE(v->start(1)) << v->errorText().toStdString();
  EXPECT_TRUE(v->isSearching());
  ASSERT_TRUE(waitIdle(w, 120000));
  QObject::disconnect(hook);
  EXPECT_FALSE(v->isSearching());
  EXPECT_TRUE(sawRunning);
  EXPECT_TRUE(counters.isEmpty()) << counters.join("\n").toStdString();
  EXPECT_FALSE(pha::search_runner::search_status(dir).complete);
  EXPECT_FALSE(v->summary().complete);
  EXPECT_EQ(tableStates(*v->leaderboard()), storeStates(dir));
  EXPECT_TRUE(v->statusText().contains("cancelled")) << v->statusText().toStdString();
  {
    // A trial whose rung run finished shows its value, "trained", awaiting the rung's decision; one
    // whose run was cancelled reads "cancelled"; only the finished runs count as trained.
    auto s = pha::store::Store::open(tp.store());
    int finishedRuns = 0, cancelledRuns = 0;
    for (const auto& e : s.list_runs()) {
      finishedRuns += e.run.status == pha::store::RunStatus::Finished;
      cancelledRuns += e.run.status == pha::store::RunStatus::Cancelled;
    }
    ASSERT_GE(finishedRuns, 1);
    int trained = 0, cancelled = 0;
    for (int r = 0; r < v->leaderboard()->rowCount(); ++r) {
      const auto* t = v->leaderboard()->trialAt(r);
      const QString value = v->leaderboard()->data(v->leaderboard()->index(r, SearchLeaderboardModel::FirstObjective)).toString();
      if (t->state == "trained") {
        ++trained;
        EXPECT_FALSE(value.isEmpty()) << "a trained trial shows its value";
        EXPECT_NE(t->why.find("awaiting the rung's decision"), std::string::npos) << t->why;
      }
      if (t->state == "cancelled") {
        ++cancelled;
        EXPECT_NE(t->why.find("cancelled"), std::string::npos) << t->why;
      }
    }
    EXPECT_EQ(trained, finishedRuns);
    EXPECT_EQ(cancelled, cancelledRuns);
    EXPECT_TRUE(v->statusText().contains(QString("%1 rung runs trained,").arg(finishedRuns)))
        << "a cancelled run is not one trained: " << v->statusText().toStdString();
  }

  // Start again: the search continues and completes; the rung runs found finished count as done
  // in "rung run i of n".
  int firstIndex = 0;
  hook = QObject::connect(w.queue(), &RunQueue::searchRunStarted, &w,
                          [&](const QString&, const QString&, const QString&, int index, int) {
                            if (firstIndex == 0) firstIndex = index;
                          });
  ASSERT_TRUE(v->start(1)) << v->errorText().toStdString();
  ASSERT_TRUE(waitIdle(w, 180000));
  QObject::disconnect(hook);
  EXPECT_GE(firstIndex, 2) << "the first rung run, finished before the cancel, is counted";
  // The window's store watcher sees what the search wrote (it would within 500 ms): the view,
  // already showing it, keeps its end message.
  w.storeWatcher()->checkNow();
  const pha::search_runner::SearchSummary status = pha::search_runner::search_status(dir);
  ASSERT_TRUE(status.complete);
  EXPECT_TRUE(v->summary().complete);
  EXPECT_TRUE(v->statusText().contains("found finished in the store")) << v->statusText().toStdString();
  EXPECT_FALSE(v->statusText().contains(" 0 found finished")) << "the first rung run, finished before the cancel, is reused";
  const auto states = tableStates(*v->leaderboard());
  EXPECT_EQ(states, storeStates(dir));
  int finished = 0, stopped = 0;
  for (const auto& [id, state] : states) {
    finished += state == "finished";
    stopped += state == "stopped";
  }
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(stopped, 3);
  // The leaderboard's first row is the finished trial, with its objective's mean.
  const auto* best = v->leaderboard()->trialAt(0);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->state, "finished");
  EXPECT_FALSE(v->leaderboard()->data(v->leaderboard()->index(0, SearchLeaderboardModel::FirstObjective)).toString().isEmpty());

  // Every rung run trained once: 4 at rung 0, 1 at rung 1, each name once, all finished.
  {
    auto s = pha::store::Store::open(tp.store());
    std::map<std::string, int> names;
    for (const auto& e : s.list_runs()) {
      ++names[e.run.name];
      EXPECT_EQ(e.run.status, pha::store::RunStatus::Finished) << e.run.name;
    }
    EXPECT_EQ(names.size(), 5u);
    for (const auto& [name, n] : names) EXPECT_EQ(n, 1) << name << " trained " << n << " times";
  }

  // The rung chart: one line per trial, three stopped at rung 0, the finished one bold through both rungs.
  RungChart* chart = v->rungChart();
  EXPECT_EQ(chart->lineCount(), 4);
  EXPECT_EQ(chart->stoppedMarkers(), 3);
  int bold = 0;
  for (int i = 0; i < chart->lineCount(); ++i)
    if (chart->lineBold(i)) {
      ++bold;
      EXPECT_EQ(chart->linePoints(i), 2);
      EXPECT_EQ(chart->lineTrial(i), searchTrialId(*best));
    }
  EXPECT_EQ(bold, 1);
  // The layer strip: every trial's pattern, the best first.
  ASSERT_EQ(v->layerStrip()->rows().size(), 4u);
  EXPECT_EQ(v->layerStrip()->rows()[0].kinds, searchTrialPattern(*best));
  EXPECT_TRUE(v->paretoChart()->emptyMessage().contains("one objective"));

  // Compare: the selected trials' latest runs.
  QStringList all;
  for (int r = 0; r < v->leaderboard()->rowCount(); ++r) all << searchTrialId(*v->leaderboard()->trialAt(r));
  v->selectTrials(all);
  EXPECT_EQ(v->selectedTrials().size(), 4);
  QSignalSpy compared(&w, &MainWindow::compareRequested);
  ASSERT_TRUE(v->compareSelected()) << v->errorText().toStdString();
  ASSERT_EQ(compared.count(), 1);
  EXPECT_EQ(compared.at(0).at(1).value<QList<qint64>>().size(), 4);

  // Deleting a stopped trial's run (as `pha runs delete` does, beside the window) leaves the
  // search decided: the Search dock, refreshed through the window's store watcher, still reads
  // it complete, every trial in the state it had.
  qint64 doomed = 0;
  for (int r = 0; r < v->leaderboard()->rowCount() && doomed == 0; ++r) {
    const auto* t = v->leaderboard()->trialAt(r);
    if (t->state == "stopped" && !t->run_ids.empty()) doomed = t->run_ids.front();
  }
  ASSERT_GT(doomed, 0);
  const qint64 seenBefore = w.storeWatcher()->changesSeen();
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::delete_runs(s, {doomed});
  }
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.storeWatcher()->changesSeen() > seenBefore; }, 5000));
  EXPECT_EQ(w.runsModel()->rowOfRun(doomed), -1) << "the run table follows the delete";
  EXPECT_TRUE(v->summary().complete) << "deleting a losing trial's run un-did the finished search";
  EXPECT_EQ(tableStates(*v->leaderboard()), states);
  EXPECT_TRUE(pha::search_runner::search_status(dir).complete);

  // Promote the finished trial: project.json gets the variant, the project reloads with it.
  v->selectTrials({searchTrialId(*best)});
  ASSERT_TRUE(v->promoteSelected("best")) << v->errorText().toStdString();
  const json written = json::parse(fileText(tp.dir() / "project.json"));
  bool found = false;
  for (const auto& var : written["variants"]) found = found || (var.is_object() && var.value("name", "") == "best");
  EXPECT_TRUE(found) << written.dump(2);
  EXPECT_TRUE(w.session()->runNames().contains("best"));
  EXPECT_EQ(v->leaderboard()->rowCount(), 4) << "the view reads the search again after the reload";
}

// A store change (a run tagged by `pha` beside the window) refreshes the search's state, not the
// Section form: an edit not saved yet stays where the user left it.
TEST(SearchView, AStoreChangeKeepsTheSectionFormsUnsavedEdits) {
  pha::test::TempProject tp;
  tp.write_project(searchProject(tp));
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.project = "test";
    nr.name = "elsewhere";
    s.create_run(nr);
  }
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  SearchForm* form = w.searchView()->form();
  ASSERT_TRUE(form->hasSection());
  form->maxEdit()->setText("99");  // typed, not saved
  const qint64 seenBefore = w.storeWatcher()->changesSeen();
  {
    auto s = pha::store::Store::open(tp.store());
    s.add_tag(s.list_runs().front().run.id, "baseline");
  }
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.storeWatcher()->changesSeen() > seenBefore; }, 5000));
  EXPECT_EQ(form->maxEdit()->text(), "99") << "the store change reloaded the form over the user's edit";
}

TEST(SearchView, TheSectionFormWritesThroughTheEngineAndShowsItsErrors) {
  pha::test::TempProject tp;
  json j = searchProject(tp);
  j["search"]["objective"] = {{"metric", "val/bpb"}, {"direction", "min"}};
  tp.write_project(j);
  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  SearchForm* form = w.searchView()->form();
  ASSERT_TRUE(form->hasSection());
  const std::string before = fileText(tp.dir() / "project.json");

  form->etaSpin()->setValue(1);
  EXPECT_FALSE(form->save());
  EXPECT_TRUE(form->errorText().contains("search.budget.eta")) << form->errorText().toStdString();
  EXPECT_EQ(fileText(tp.dir() / "project.json"), before) << "a refused section writes nothing";

  form->spaceEdit()->setPlainText("{\"training.lr\": [0.001,");
  EXPECT_FALSE(form->save());
  EXPECT_TRUE(form->errorText().contains("search.space")) << form->errorText().toStdString();
  EXPECT_EQ(fileText(tp.dir() / "project.json"), before);

  form->revert();
  form->etaSpin()->setValue(3);
  form->maxEdit()->setText("36");
  ASSERT_TRUE(form->save()) << form->errorText().toStdString();
  const json after = json::parse(fileText(tp.dir() / "project.json"));
  EXPECT_EQ(after["search"]["budget"]["max"], 36);
  EXPECT_EQ(after["search"]["objective"], j["search"]["objective"]) << "an untouched field keeps its JSON";
  EXPECT_EQ(after["search"]["patterns"], j["search"]["patterns"]);
  EXPECT_EQ(after["model"], j["model"]) << "the rest of the file is kept";
  EXPECT_EQ(w.searchView()->leaderboard()->rowCount(), 4) << "the view follows the saved section";
}

// Rungs shorter than the base variant's warmup are accepted when every trial sets its own warmup
// (issue 36: 15 / 45 steps, warmups [4, 8], the base's 25): the form saves through the engine's
// check of each trial's values; a trial that cannot fit is refused by its values.
TEST(SearchView, TheFormAcceptsRungsShorterThanTheBaseWarmupWhenTheSpaceSetsWarmups) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project({{"steps", 45}, {"warmup_steps", 25}}));
  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  SearchForm* form = w.searchView()->form();
  form->spaceEdit()->setPlainText("{\"training.lr\": [0.001, 0.003], \"training.warmup_steps\": [4, 8]}");
  form->minEdit()->setText("15");
  form->maxEdit()->setText("45");
  form->etaSpin()->setValue(3);
  ASSERT_TRUE(form->save()) << form->errorText().toStdString();
  const json saved = json::parse(fileText(tp.dir() / "project.json"));
  EXPECT_EQ(saved["search"]["budget"]["min"], 15);
  EXPECT_EQ(saved["search"]["space"]["training.warmup_steps"], json({4, 8}));
  EXPECT_EQ(w.searchView()->leaderboard()->rowCount(), 4);

  const std::string before = fileText(tp.dir() / "project.json");
  form->spaceEdit()->setPlainText("{\"training.lr\": [0.001, 0.003], \"training.warmup_steps\": [4, 25]}");
  EXPECT_FALSE(form->save());
  EXPECT_TRUE(form->errorText().contains("search.budget.min")) << form->errorText().toStdString();
  EXPECT_TRUE(form->errorText().contains("warmup_steps=25")) << form->errorText().toStdString();
  EXPECT_EQ(fileText(tp.dir() / "project.json"), before);
}

TEST(SearchView, AProjectWithoutASearchSectionSaysHowToAddOne) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project({{"steps", 90}, {"warmup_steps", 5}}));
  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  SearchView* v = w.searchView();
  EXPECT_FALSE(v->hasSearchSection());
  QAction* menu = actionNamed(w, "&Search...");
  ASSERT_NE(menu, nullptr);
  EXPECT_FALSE(menu->isEnabled());
  EXPECT_TRUE(menu->toolTip().contains("no \"search\" section")) << menu->toolTip().toStdString();
  EXPECT_TRUE(v->statusText().contains("no \"search\" section")) << v->statusText().toStdString();
  EXPECT_FALSE(v->start(1));
  // The form's proposal is a section the engine accepts.
  ASSERT_TRUE(v->form()->save()) << v->form()->errorText().toStdString();
  EXPECT_TRUE(v->hasSearchSection());
  EXPECT_TRUE(menu->isEnabled());
  EXPECT_EQ(v->leaderboard()->rowCount(), 3);  // lr at a third, once and three times
  EXPECT_TRUE(json::parse(fileText(tp.dir() / "project.json")).contains("search"));
}

namespace {

pha::search_runner::SearchTrialState trial(int index, const std::string& state, std::vector<std::vector<double>> means,
                                     std::vector<std::string> pattern) {
  pha::search_runner::SearchTrialState t;
  t.search = "pha-tiny";
  t.trial = index;
  t.label = "t" + std::to_string(index);
  t.values = {{"pattern", pattern}};
  t.state = state;
  for (std::size_t r = 0; r < means.size(); ++r) {
    pha::search_runner::SearchRungPoint p;
    p.rung = static_cast<int>(r);
    p.resource = 30.0 * std::pow(3.0, static_cast<double>(r));
    p.state = r + 1 == means.size() ? state : "promoted";
    p.mean = means[r];
    p.stdev = {0.0, 0.0};
    p.run_ids = {static_cast<std::int64_t>(10 * index + static_cast<int>(r) + 1)};
    t.history.push_back(p);
  }
  t.rung = static_cast<int>(means.size()) - 1;
  t.resource = t.history.back().resource;
  t.mean = means.back();
  t.run_ids = t.history.back().run_ids;
  return t;
}

}  // namespace

TEST(SearchView, ParetoChartAndLiveMergeOfASyntheticSummary) {
  pha::search_runner::SearchSummary s;
  s.project = "synthetic";
  s.searches = {"pha-tiny"};
  s.objectives = {"val/bpb", "params"};
  s.resource = "steps";
  s.trials = {trial(0, "finished", {{2.5, 900}, {2.2, 900}}, {"gss", "attn"}),
              trial(1, "stopped", {{2.4, 500}}, {"attn", "gss"}),   // cheaper: on the front
              trial(2, "stopped", {{2.6, 950}}, {"gss", "gss"}),    // dominated by t0's rung 0 and t1
              trial(3, "finished", {{2.45, 1000}, {2.1, 1000}}, {"attn", "attn"})};
  SearchParetoChart pareto;
  pareto.setSummary(s);
  EXPECT_EQ(pareto.pointCount(), 4);
  QStringList front = pareto.frontTrials();
  front.sort();
  EXPECT_EQ(front, (QStringList{"pha-tiny:b0:t0", "pha-tiny:b0:t1", "pha-tiny:b0:t3"}));

  // The leaderboard order: finished by their value, then stopped by theirs.
  const std::vector<int> order = searchLeaderboardOrder(s);
  EXPECT_EQ(order, (std::vector<int>{3, 0, 1, 2}));

  // A live summary that has decided only rung 0 of trials 0 and 1 replaces those two.
  pha::search_runner::SearchSummary base = s;
  for (auto& t : base.trials) t.state = "pending";
  pha::search_runner::SearchSummary live;
  live.project = "synthetic";
  live.trials = {s.trials[0], s.trials[1]};
  const auto merged = mergeSearchSummary(base, live);
  ASSERT_EQ(merged.trials.size(), 4u);
  EXPECT_EQ(merged.trials[0].state, "finished");
  EXPECT_EQ(merged.trials[2].state, "pending");
  EXPECT_EQ(merged.objectives, s.objectives);
  auto running = merged;
  ASSERT_TRUE(markSearchRunStarted(running, "pha-tiny:b0:t2:r1:s7"));
  EXPECT_EQ(running.trials[2].state, "running");
  EXPECT_EQ(running.trials[2].rung, 1);
  EXPECT_DOUBLE_EQ(running.trials[2].resource, 90.0);  // rung 1's resource, from a trial that reached it
  EXPECT_FALSE(markSearchRunStarted(running, "nonsense"));
  // A rung no trial has reached yet: its budget from the section's ladder (summary.rungs).
  running.rungs = {{"pha-tiny", 0, 0, 30.0, 4}, {"pha-tiny", 0, 1, 90.0, 2}, {"pha-tiny", 0, 2, 270.0, 1}};
  ASSERT_TRUE(markSearchRunStarted(running, "pha-tiny:b0:t3:r2:s7"));
  EXPECT_EQ(running.trials[3].rung, 2);
  EXPECT_DOUBLE_EQ(running.trials[3].resource, 270.0);

  RungChart chart;
  chart.setSummary(s);
  EXPECT_EQ(chart.lineCount(), 4);
  EXPECT_EQ(chart.stoppedMarkers(), 2);
  EXPECT_EQ(searchTrialRuns(s.trials[0]), (QList<qint64>{2}));
}
