// The window keeps what the user studies (docs/gui.md, "What the window keeps"): nothing invalid
// is saved, the plan and the queue read one rule for "already trained", adding a variant keeps the
// selection, Compare and the Lens, one duration rule, one colour per model, the Lens's bins lead
// with a - b, the layout at 1280 x 720, integer fields keep what is typed, unsaved edits are asked
// about, and a verdict in the Report dock opens the runs behind it. Each test is one item of the
// step-24 walk, pressed as a user would where a widget can be pressed.
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <qcustomplot.h>
#include <sstream>

#include "gui/compare/compare_widget.h"
#include "gui/config/config_editor.h"
#include "gui/compare/curves_tab.h"
#include "widgets/efficiency_panel.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/config/json_form.h"
#include "gui/lens/lens_tokens_tab.h"
#include "gui/lens/lens_view.h"
#include "gui/main_window.h"
#include "window_project.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "gui/project/plan_dialog.h"
#include "project/project.h"
#include "project/project_files.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/report/report_view.h"
#include "gui/runs/run_browser.h"
#include "gui/monitor/run_monitor.h"
#include "gui/runs/runs_model.h"
#include "gui/config/section_editor.h"
#include "widgets/series_colors.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;
using nlohmann::json;

namespace {

using pha::test::writeQuickstartCopy;

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every plan of the project stored as a finished run with the plan's own configuration (what
// training it would have written), its group and seed, a short train/loss curve whose last step
// is at `wallMs`, and a final val/loss of 2.40 for pha models, 2.60 for the others, + 0.01 x seed.
std::vector<std::int64_t> storeTrainedPlans(const pha::test::TempProject& tp, std::int64_t wallMs = 7300) {
  const pha::project::Project p = pha::project::load_project(tp.dir().string());
  auto s = pha::store::Store::open(tp.store());
  std::vector<std::int64_t> ids;
  for (const auto& plan : p.runs) {
    pha::store::NewRun nr;
    nr.project = p.name;
    nr.name = plan.name;
    nr.variant = plan.variant;
    nr.group = plan.group;
    nr.seed = static_cast<std::int64_t>(plan.seed);
    nr.config_json = plan.config.dump();
    ids.push_back(s.create_run(nr));
    pha::store::RunWriter w(s, ids.back());
    for (int step = 1; step <= 10; ++step) w.metric("train/loss", step, step * 64, wallMs * step / 10, 5.0 - 0.1 * step);
    const double base = plan.group.rfind("pha", 0) == 0 ? 2.40 : 2.60;
    w.metric("val/loss", 10, 640, wallMs + 900, base + 0.01 * static_cast<double>(plan.seed));
    w.finish(pha::store::RunStatus::Finished);
  }
  return ids;
}

// A quickstart copy (edited by `edit` first) whose store holds every plan trained, opened in a
// shown window.
struct TrainedQuickstart {
  pha::test::TempProject tp;
  std::vector<std::int64_t> ids;
  explicit TrainedQuickstart(std::int64_t wallMs = 7300, const std::function<void(json&)>& edit = {}) {
    writeQuickstartCopy(tp);
    if (edit) {
      std::ifstream in(tp.dir() / "project.json");
      json j = json::parse(in);
      edit(j);
      tp.write_project(j);
    }
    ids = storeTrainedPlans(tp, wallMs);
  }
  QString dir() const { return QString::fromStdString(tp.dir().string()); }
  ::testing::AssertionResult open(MainWindow& w) const {
    w.show();
    if (w.openProject(dir())) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << w.lastError().toStdString();
  }
};

// Presses "Add to project as variant..." and answers the name dialog (when one opens).
void pressAddVariant(MainWindow& w, const QString& name) {
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget())) {
      poll.stop();
      dialog->setTextValue(name);
      dialog->accept();
    }
  });
  poll.start(10);
  w.findChild<QPushButton*>("addVariantButton")->click();
  poll.stop();
}

bool waitReport(MainWindow& w) {
  return QTest::qWaitFor([&] { return !w.reportView()->isBuilding() && w.reportView()->report(); }, 30000);
}

}  // namespace

// 1. Steps 30 with warmup 50 is shown in red; Add variant refuses it and writes nothing (it
// used to save the model without its training section, which would train 150 steps).
TEST(WindowContext, AnInvalidTrainingSectionIsRefusedAndNothingIsWritten) {
  pha::test::TempProject tp;
  writeQuickstartCopy(tp);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  json training = w.configEditor()->trainingJson();
  training["steps"] = 30;
  training["warmup_steps"] = 50;
  w.configEditor()->trainingEditor()->pushDocument("edit", training);
  ASSERT_FALSE(w.configEditor()->isTrainingValid());
  const std::string before = fileText(tp.dir() / "project.json");
  pressAddVariant(w, "quick30b");
  EXPECT_EQ(fileText(tp.dir() / "project.json"), before) << "nothing is written";
  EXPECT_NE(w.lastError().indexOf("training section is not valid"), -1) << w.lastError().toStdString();
  EXPECT_NE(w.lastError().indexOf("warmup"), -1) << "the error names the field: " << w.lastError().toStdString();
  EXPECT_EQ(w.session()->runNames().size(), 3);
  // Valid again (60 steps, warmup 50): saved with its training section.
  training["steps"] = 60;
  w.configEditor()->trainingEditor()->pushDocument("edit", training);
  ASSERT_TRUE(w.configEditor()->isTrainingValid()) << w.configEditor()->trainingErrorText().toStdString();
  pressAddVariant(w, "quick60");
  const json written = json::parse(fileText(tp.dir() / "project.json"));
  ASSERT_EQ(written["variants"].size(), 4u) << w.lastError().toStdString();
  EXPECT_EQ(written["variants"][3]["training"]["steps"], 60);
  EXPECT_FALSE(w.configEditor()->hasUnsavedEdits()) << "the edits are in project.json now";
}

// 2. After a rename in the store, `pha plan` (plan_project), the window's plan and the queue's
// confirmation agree on what is trained: the renamed run still counts, under its new name.
TEST(WindowContext, PlanAndConfirmationAgreeAfterARenameAndThePlanAsksOnce) {
  pha::test::TempProject tp;
  writeQuickstartCopy(tp);
  const std::vector<std::int64_t> ids = storeTrainedPlans(tp);
  {
    auto s = pha::store::Store::open(tp.store());
    s.rename_run(ids[1], "attn-only-3e3");
  }
  // A fourth plan, not trained.
  json j = json::parse(fileText(tp.dir() / "project.json"));
  json wide = pha::model::to_json(pha::model::preset("pha-tiny"));
  wide["d_model"] = 96;
  j["variants"].push_back({{"name", "pha-wide"}, {"model", wide}});
  tp.write_project(j);

  PlanDialog d(QString::fromStdString(tp.dir().string()), /*withRun=*/true);
  ASSERT_TRUE(QTest::qWaitFor([&] { return d.isReady(); }, 120000));
  ASSERT_TRUE(d.errorText().isEmpty()) << d.errorText().toStdString();
  ASSERT_EQ(d.table()->rowCount(), 4);
  EXPECT_EQ(d.table()->item(1, 6)->text(), QString("finished (run %1, renamed attn-only-3e3)").arg(ids[1]));
  EXPECT_EQ(d.table()->item(3, 6)->text(), "to train");
  // The dialog asks the question the queue used to ask after it: train the one new run, or all.
  EXPECT_TRUE(d.runButton()->isVisible() || !d.runButton()->isHidden());
  EXPECT_EQ(d.runButton()->text(), "Train the 1 run to train");
  EXPECT_FALSE(d.runAllButton()->isHidden());
  EXPECT_EQ(d.runAllButton()->text(), "Train all 4 again");

  // The queue's confirmation (Run project without the plan) counts the same runs as trained.
  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  QString asked;
  QStringList fresh;
  w.queueController()->setConfirm([&](const QString& question, const QStringList& newRuns) {
    asked = question;
    fresh = newRuns;
    return QueueController::RepeatChoice::Nothing;
  });
  w.runProject();
  EXPECT_NE(asked.indexOf(QString("transformerpp-tiny (run %1)").arg(ids[1])), -1) << asked.toStdString();
  EXPECT_EQ(fresh, QStringList{"pha-wide"});
  // With the dialog's answer the queue asks nothing.
  asked.clear();
  EXPECT_FALSE(w.queueController()->runProject(*w.session(), QueueController::RepeatChoice::Nothing));
  EXPECT_TRUE(asked.isEmpty()) << "asked twice: " << asked.toStdString();
}

// 4. Adding a variant keeps what is studied: the selected run, Compare's runs, the Lens's run
// and the curves (it used to reopen the project and clear them all).
TEST(WindowContext, AddingAVariantKeepsTheSelectionCompareLensAndCurves) {
  const TrainedQuickstart q;
  const std::vector<std::int64_t>& ids = q.ids;
  MainWindow w;
  ASSERT_TRUE(q.open(w));
  ASSERT_TRUE(w.runBrowser()->selectRuns({ids[0], ids[1]}));
  w.compareSelected();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.compareWidget()->loadedRuns().size() == 2; }, 10000));
  ASSERT_TRUE(w.runBrowser()->selectRuns({ids[2]}));
  ASSERT_EQ(w.monitor()->shownRunId(), ids[2]);
  ASSERT_EQ(w.lensView()->runId(), ids[2]);

  json model = w.configEditor()->configJson();
  model["d_model"] = 96;
  w.configEditor()->modelEditor()->pushDocument("wider", model);
  pressAddVariant(w, "seq-wide");
  ASSERT_EQ(w.session()->runNames().size(), 4) << w.lastError().toStdString();
  EXPECT_EQ(w.runBrowser()->selectedRunIds(), QList<qint64>{ids[2]}) << "the selection stays";
  EXPECT_EQ(w.compareWidget()->runs().size(), 2) << "Compare keeps its runs";
  EXPECT_EQ(w.lensView()->runId(), ids[2]) << "the Lens keeps its run";
  EXPECT_EQ(w.monitor()->shownRunId(), ids[2]) << "the curves keep their run";
  EXPECT_EQ(w.configEditor()->configJson()["d_model"], 96) << "the Configuration keeps what was added";
}

// 5. One duration rule: the run table's "Train time" and Compare's "training time" are the same
// figure (the run's clock at its last step); Compare adds the wall time, start to end.
TEST(WindowContext, TheRunTableAndCompareShowOneTrainingTimeAndCompareAddsTheWallTime) {
  const TrainedQuickstart q(15700);
  const std::vector<std::int64_t>& ids = q.ids;
  MainWindow w;
  ASSERT_TRUE(q.open(w));
  RunsModel* m = w.runsModel();
  const int row = m->rowOfRun(ids[0]);
  ASSERT_GE(row, 0);
  EXPECT_EQ(m->headerData(RunsModel::Duration, Qt::Horizontal).toString(), "Train time");
  EXPECT_EQ(m->index(row, RunsModel::Duration).data().toString(), "15.7 s");
  ASSERT_TRUE(w.runBrowser()->selectRuns({ids[0], ids[1]}));
  w.compareSelected();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.compareWidget()->loadedRuns().size() == 2; }, 10000));
  auto* metrics = w.compareWidget()->findChild<QTableWidget*>("compareMetricsTable");
  ASSERT_NE(metrics, nullptr);
  int training = -1, wall = -1;
  for (int r = 0; r < metrics->rowCount(); ++r) {
    if (metrics->verticalHeaderItem(r)->text() == "training time") training = r;
    if (metrics->verticalHeaderItem(r)->text() == "wall time") wall = r;
  }
  ASSERT_GE(training, 0);
  ASSERT_GE(wall, 0);
  int column = -1;
  for (int c = 0; c < metrics->columnCount(); ++c)
    if (metrics->horizontalHeaderItem(c)->text().remove('\n').startsWith("pha-tiny")) column = c;
  ASSERT_GE(column, 0);
  EXPECT_EQ(metrics->item(training, column)->text(), "15.7 s");
  EXPECT_FALSE(metrics->item(training, column)->toolTip().isEmpty()) << "what the figure is, said";
  EXPECT_FALSE(metrics->item(wall, column)->toolTip().isEmpty());
}

// 6. One colour per model in every dock: Compare's curves (two comparisons in different order),
// the Efficiency dock's profile and the Inference tab's model, in project.json's order.
TEST(WindowContext, AModelHasOneColourInCompareEfficiencyAndInference) {
  const TrainedQuickstart q;
  const std::vector<std::int64_t>& ids = q.ids;
  MainWindow w;
  ASSERT_TRUE(q.open(w));
  // The project's models hold the palette in their order.
  EXPECT_EQ(pha::widgets::modelColors().index("pha-tiny"), 0);
  EXPECT_EQ(pha::widgets::modelColors().index("transformerpp-tiny"), 1);
  EXPECT_EQ(pha::widgets::modelColors().index("sequential-tiny"), 2);
  const QColor tpp = pha::widgets::modelColor("transformerpp-tiny");
  EXPECT_EQ(pha::widgets::modelColor("transformerpp-tiny/lr=0.003,confirm"), tpp) << "a grid point is its model";
  EXPECT_EQ(pha::widgets::modelColor("profile: transformerpp-tiny"), tpp);
  EXPECT_EQ(pha::widgets::modelColor("inference: transformerpp-tiny"), tpp);

  auto curveColour = [&](const QString& name) {
    QCustomPlot* plot = w.compareWidget()->curvesTab()->plot();
    for (int g = 0; g < plot->graphCount(); ++g)
      if (plot->graph(g)->name().startsWith(name)) return plot->graph(g)->pen().color();
    return QColor();
  };
  for (const QList<qint64>& order : {QList<qint64>{ids[1], ids[0]}, QList<qint64>{ids[2], ids[1]}}) {
    ASSERT_TRUE(w.runBrowser()->selectRuns(order));
    w.compareSelected();
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.compareWidget()->loadedRuns().size() == 2; }, 10000));
    w.compareWidget()->curvesTab()->setSelectedKeys({"train/loss"});
    EXPECT_EQ(curveColour("transformerpp-tiny"), tpp) << "Compare gives the model its colour in every comparison";
  }
  pha::widgets::EfficiencyPanel efficiency;
  pha::widgets::EfficiencySeries s;
  s.label = "profile: transformerpp-tiny";
  pha::store::PerfRow row;
  row.seq_len = 128;
  row.batch = 8;
  row.tokens_per_s = 9000;
  row.peak_bytes = 1 << 20;
  row.phase = "train";
  s.rows = {row};
  efficiency.setSeries({s});
  EXPECT_EQ(efficiency.colorOf(s.label), tpp) << "the Efficiency dock draws the model in the same colour";
}

// 7. The Lens's bins lead with the answer: a - b and its interval beside the bin, in view
// without a sideways scroll at the width the dock has at 1280 x 720.
TEST(WindowContext, LensTokensBinsLeadWithTheDifferenceAndShowItWhole) {
  LensTokensTab tab;
  tab.resize(740, 380);
  tab.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&tab));
  pha::runtime::TokenComparison c;
  c.label_a = "pha-tiny/lr=0.01,confirm";
  c.label_b = "transformerpp-tiny/lr=0.003,confirm";
  c.overall = {"all", 2.35, 2.59, -0.2430, -0.2726, -0.2166, 4096};
  c.by_class = {{"copyable", 1.64, 1.95, -0.3109, -0.3743, -0.2486, 254}};
  c.by_position = {{"16-31", 2.37, 2.62, -0.2350, -0.2806, -0.1900, 512}};
  c.bootstrap = 1000;
  tab.setComparison(c);
  QTableWidget* bins = tab.bins();
  ASSERT_EQ(bins->columnCount(), 6);
  EXPECT_EQ(bins->horizontalHeaderItem(1)->text(), "a - b");
  EXPECT_EQ(bins->horizontalHeaderItem(2)->text(), "95% interval");
  EXPECT_EQ(bins->item(0, 1)->text(), "-0.2430");
  EXPECT_EQ(bins->item(0, 2)->text(), "[-0.2726, -0.2166]");
  QApplication::processEvents();
  const int right = bins->horizontalHeader()->sectionViewportPosition(2) + bins->horizontalHeader()->sectionSize(2);
  EXPECT_LE(right, bins->viewport()->width()) << "the interval needs a sideways scroll";
  EXPECT_EQ(bins->horizontalScrollBar()->value(), 0);
  // The chosen comparison reads whole in the box's tooltip where a narrow dock cuts its end.
  const QString label = "group pha-tiny/lr=0.01,confirm (4 runs) vs group transformerpp-tiny/lr=0.003,confirm (4 runs)";
  tab.setCompareChoices({CompareChoice{label, {19, 20, 21, 22}, {23, 24, 25, 26}, "transformerpp-tiny/lr=0.003,confirm"}});
  tab.setCompareIndex(0);
  auto* box = tab.findChild<QComboBox*>("lensCompareWith");
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->toolTip(), label);
}

// 8. At 1280 x 720 the run table shows at least 6 rows; a window saved at 1600 x 1000 comes back
// inside the screen (as far as its minimum size allows) with the default dock shares.
TEST(WindowContext, At1280x720TheRunTableShowsSixRowsAndASavedWindowFitsTheScreen) {
  QSettings().clear();
  pha::test::TempProject tp;
  writeQuickstartCopy(tp);
  {
    auto s = pha::store::Store::open(tp.store());
    for (int i = 0; i < 8; ++i) {
      pha::store::NewRun nr;
      nr.project = "quickstart";
      nr.name = "pha-tiny/lr=0.00" + std::to_string(i + 1);
      nr.variant = "pha";
      const auto id = s.create_run(nr);
      pha::store::RunWriter writer(s, id);
      writer.metric("train/loss", 1, 64, 10, 4.0);
      writer.finish(pha::store::RunStatus::Finished);
    }
  }
  {
    MainWindow w;
    w.resize(1280, 720);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
    QTest::qWait(100);
    auto* table = w.docks().projectDock->findChild<QTableView*>();
    ASSERT_NE(table, nullptr);
    const int rows = table->viewport()->height() / std::max(1, table->rowHeight(0));
    EXPECT_GE(rows, 6) << "the run table shows " << rows << " rows at 1280 x 720";
    w.resize(1600, 1000);
    w.saveSettings();
  }
  MainWindow restored;
  restored.restoreSettings();
  const QRect avail = restored.screen()->availableGeometry();
  EXPECT_LE(restored.width(), std::max(avail.width(), restored.minimumWidth()));
  EXPECT_LE(restored.height(), std::max(avail.height(), restored.minimumHeight()));
}

// 9. Input: an integer field keeps the minus typed or loaded (the engine's error names it), and
// quitting with unsaved Configuration edits asks first.
TEST(WindowContext, IntegerFieldsKeepWhatIsTypedAndQuittingWithUnsavedEditsAsks) {
  pha::test::TempProject tp;
  writeQuickstartCopy(tp);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  auto* dModel = w.configEditor()->findChild<QSpinBox*>("d_model");
  ASSERT_NE(dModel, nullptr);
  dModel->setFocus();
  dModel->selectAll();
  QTest::keyClicks(dModel, "-64");
  QTest::keyClick(dModel, Qt::Key_Tab);
  EXPECT_EQ(dModel->value(), -64) << "the minus was swallowed: " << dModel->text().toStdString();
  EXPECT_FALSE(w.configEditor()->isValid());
  EXPECT_NE(w.configEditor()->errorText().indexOf("d_model"), -1) << w.configEditor()->errorText().toStdString();
  // Loaded from JSON the same: the form shows -64, not its minimum.
  json model = w.configEditor()->configJson();
  model["d_model"] = -32;
  w.configEditor()->modelEditor()->pushDocument("json", model);
  EXPECT_EQ(dModel->value(), -32);
  // Quit: asked, and "no" keeps the window.
  QString asked;
  w.setAsk([&](const QString& q) {
    asked = q;
    return false;
  });
  QCloseEvent close;
  QApplication::sendEvent(&w, &close);
  EXPECT_FALSE(close.isAccepted()) << "quit without asking about unsaved edits";
  EXPECT_NE(asked.indexOf("not valid"), -1) << asked.toStdString();
  w.setAsk([](const QString&) { return true; });
}

// 11. The Report dock leads with the verdicts; a verdict's links open its runs in Compare and its
// tokens in the Lens, group against group.
TEST(WindowContext, AVerdictOpensItsRunsInCompareAndTheLens) {
  const TrainedQuickstart q(7300, [](json& j) {
    j["seeds"] = {0, 1, 2};
    j["claims"] = {{{"claim", "lower_is_better"}, {"metric", "val/loss"}, {"better", "pha-tiny"},
                    {"than", "transformerpp-tiny"}, {"title", "PHA beats Transformer++"}}};
  });
  MainWindow w;
  ASSERT_TRUE(q.open(w));
  ASSERT_TRUE(waitReport(w)) << w.reportView()->message().toStdString();
  ASSERT_EQ(w.reportView()->verdictLineCount(), 1);
  auto* line = w.reportView()->verdictsBox()->findChild<QLabel*>("reportVerdictLine");
  ASSERT_NE(line, nullptr);
  EXPECT_NE(line->text().indexOf("runs in Compare"), -1);
  EXPECT_NE(line->text().indexOf("PHA beats Transformer++"), -1) << line->text().toStdString();

  emit line->linkActivated("compare:0");
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.compareWidget()->loadedRuns().size() == 6; }, 10000))
      << w.lastError().toStdString();
  EXPECT_EQ(w.runBrowser()->selectedRunIds().size(), 6) << "the runs behind the verdict are selected";

  emit line->linkActivated("lens:0");
  EXPECT_TRUE(w.docks().lensDock->isVisible());
  const qint64 lensRun = w.lensView()->runId();
  const int row = w.runsModel()->rowOfRun(lensRun);
  ASSERT_GE(row, 0);
  EXPECT_EQ(w.runsModel()->entry(row)->run.group.rfind("pha-tiny", 0), 0u) << "the better side's run";
  const int index = w.lensView()->tokensTab()->compareIndex();
  ASSERT_GE(index, 0) << "no comparison chosen";
  EXPECT_EQ(w.lensView()->tokensTab()->compareChoices()[index].group.left(18), "transformerpp-tiny");
  EXPECT_TRUE(QTest::qWaitFor([&] { return !w.lensView()->isBusy(); }, 60000));
}
