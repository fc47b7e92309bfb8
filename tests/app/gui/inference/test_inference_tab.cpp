// The Efficiency dock's Inference tab (app/gui/inference/inference_tab.h, widgets/inference_panel.h),
// offscreen: hand-made inference points recorded with store_inference_results show as the
// table's rows and cells, one decode and one prefill curve per model and batch, the memory bars
// at a chosen L with the allocated-vs-formula check, and the decode slope; the newest run of a
// model wins and another project's runs stay out; in the window the tab follows the store and
// the Training tab does not list inference runs as profiles; bad settings are refused by name;
// Measure runs the real `pha __inference-point` workers in a worker thread, records the runs and
// refreshes; Cancel keeps what was measured.
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "gui/docks.h"
#include "widgets/efficiency_panel.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/inference/inference_measure_dialog.h"
#include "widgets/inference_memory_chart.h"
#include "widgets/inference_panel.h"
#include "gui/inference/inference_settings.h"
#include "gui/inference/inference_tab.h"
#include "gui/main_window.h"
#include "widgets/plot_panel.h"
#include "gui/monitor/run_monitor.h"
#include "store/inference_store.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;
using pha::store::InferencePointResult;
using pha::widgets::InferencePanel;

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

// A point as `pha __inference-point` reports it, with figures chosen so the cells are known:
// "attn" decodes in 1 + L/512 ms from a KV cache of (L + 64) x 6168 bytes (6.4 MiB at L = 1024);
// "gss" in 1.2 ms whatever L, from a 0.2 MiB recurrent state.
InferencePointResult point(const std::string& model, std::int64_t L, std::int64_t batch = 1) {
  InferencePointResult p;
  p.spec.model = model;
  p.spec.seq_len = L;
  p.spec.batch = batch;
  p.spec.generate = 64;  // the spec is validated when read back: warm-up 2 + timed 32 must fit
  p.n_params = 1'300'000;
  p.context = 512;
  const bool attn = model == "attn";
  p.ttft_ms = 0.1 * static_cast<double>(L * batch);
  p.prefill_tokens_per_s = static_cast<double>(batch * L) / (p.ttft_ms / 1e3);
  p.decode_ms_per_token = attn ? 1.0 + static_cast<double>(L) / 512.0 : 1.2;
  p.decode_tokens_per_s = static_cast<double>(batch) * 1000.0 / p.decode_ms_per_token;
  p.e2e_ms = p.ttft_ms + 63 * p.decode_ms_per_token;
  p.e2e_tokens_per_s = static_cast<double>(batch) * 64 * 1000.0 / p.e2e_ms;
  p.memory.weights = 5 * kMiB;
  p.memory.kv_cache = attn ? (L + 64) * 6168 * batch : 0;
  p.memory.kv_formula = p.memory.kv_cache;
  p.memory.gss_state = attn ? 0 : kMiB / 5;
  p.memory.gss_state_formula = p.memory.gss_state;
  p.memory.activations = 20 * kMiB;
  p.memory.baseline = 150 * kMiB;
  p.memory.peak = p.memory.baseline + p.memory.weights + p.memory.kv_cache + p.memory.gss_state + p.memory.activations;
  p.dtype = "float32";
  p.decode_path = attn ? "KV cache (attention layers)" : "GSS recurrence";
  p.device = "cpu";
  p.method = "hand-made for the test";
  p.started_ms = 1'700'000'000'000;
  p.ended_ms = p.started_ms + 1000;
  return p;
}

std::vector<InferencePointResult> twoModelsAtThreeLengths() {
  std::vector<InferencePointResult> out;
  for (const char* m : {"attn", "gss"})
    for (std::int64_t L : {256, 512, 1024}) out.push_back(point(m, L));
  return out;
}

QString cell(const InferencePanel* panel, int row, int column) {
  const QTableWidgetItem* it = panel->table()->item(row, column);
  return it ? it->text() : QString();
}

// The panel's rows by (model, L, batch), whatever the sort.
int rowOf(const InferencePanel* panel, const QString& model, std::int64_t L, std::int64_t batch = 1) {
  for (int r = 0; r < panel->tableRows(); ++r)
    if (cell(panel, r, InferencePanel::Model) == model && cell(panel, r, InferencePanel::Length) == QString::number(L) &&
        cell(panel, r, InferencePanel::Batch) == QString::number(batch))
      return r;
  return -1;
}

}  // namespace

TEST(InferenceTab, ShowsTheNewestRunOfEachModelOfTheProject) {
  pha::test::TempProject tp;
  const std::string store = tp.store();
  // An older measurement of attn (decoding at 99 ms) and another project's run: neither is shown.
  auto old = point("attn", 256);
  old.decode_ms_per_token = 99.0;
  pha::store::store_inference_results(store, "p", {old});
  pha::store::store_inference_results(store, "other", {point("elsewhere", 256)});
  const auto ids = pha::store::store_inference_results(store, "p", twoModelsAtThreeLengths());
  ASSERT_EQ(ids.size(), 2u);

  InferenceTab tab;
  tab.resize(1400, 800);
  tab.setProject(QString::fromStdString(tp.dir().string()), "p", QString::fromStdString(store));
  const InferencePanel* panel = tab.panel();
  ASSERT_EQ(panel->tableRows(), 6);
  EXPECT_EQ(panel->decodeCurveCount(), 2);
  EXPECT_EQ(panel->prefillCurveCount(), 2);
  EXPECT_EQ(panel->decodePlot()->plot()->graph(0)->name(), "attn");
  EXPECT_EQ(panel->decodePlot()->plot()->graph(0)->dataCount(), 3);
  EXPECT_TRUE(panel->legendText().contains("attn") && panel->legendText().contains("gss")) << panel->legendText().toStdString();

  // The cells: the newest attn run's figures, L against the training context (512) with the
  // context's row marked, MiB with one decimal.
  const int r1024 = rowOf(panel, "attn", 1024);
  ASSERT_GE(r1024, 0);
  EXPECT_EQ(cell(panel, r1024, InferencePanel::DecodeMs), "3.00");
  EXPECT_EQ(cell(panel, r1024, InferencePanel::KvCache), "6.4");
  EXPECT_EQ(cell(panel, r1024, InferencePanel::Weights), "5.0");
  EXPECT_EQ(cell(panel, r1024, InferencePanel::Context), "2x");
  EXPECT_EQ(cell(panel, r1024, InferencePanel::Ttft), "102");
  EXPECT_EQ(cell(panel, rowOf(panel, "attn", 256), InferencePanel::DecodeMs), "1.50") << "the older run's 99 ms shown";
  EXPECT_EQ(cell(panel, rowOf(panel, "attn", 256), InferencePanel::Context), "0.5x");
  const int atContext = rowOf(panel, "gss", 512);
  EXPECT_EQ(cell(panel, atContext, InferencePanel::Context), "1x (ctx)");
  EXPECT_TRUE(panel->table()->item(atContext, InferencePanel::Context)->font().bold());
  EXPECT_EQ(cell(panel, atContext, InferencePanel::GssState), "0.2");
  EXPECT_TRUE(panel->table()->item(r1024, InferencePanel::Model)->toolTip().contains("decode path: KV cache"));
  EXPECT_EQ(rowOf(panel, "elsewhere", 256), -1) << "another project's run is shown";

  // The memory bars at L = 1024: one per model, the parts in MiB, the check in the tooltip.
  ASSERT_TRUE(tab.panel()->selectMemoryPoint(1024, 1));
  const auto& bars = panel->memoryChart()->bars();
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].model, "attn");
  EXPECT_NEAR(bars[0].weights, 5.0, 1e-9);
  EXPECT_NEAR(bars[0].kvCache, (1024.0 + 64) * 6168 / kMiB, 1e-9);
  EXPECT_NEAR(bars[0].gssState, 0.0, 1e-9);
  EXPECT_NEAR(bars[0].rest, 20.0, 1e-9);
  EXPECT_NEAR(bars[1].gssState, 0.2, 1e-6);
  EXPECT_TRUE(bars[0].tooltip.contains("KV cache 6.4 MiB allocated = formula")) << bars[0].tooltip.toStdString();
  EXPECT_TRUE(bars[1].tooltip.contains("GSS state 0.2 MiB allocated = formula")) << bars[1].tooltip.toStdString();
  // At L = 256 the bars change with the choice.
  ASSERT_TRUE(tab.panel()->selectMemoryPoint(256, 1));
  EXPECT_NEAR(panel->memoryChart()->bars()[0].kvCache, (256.0 + 64) * 6168 / kMiB, 1e-9);
  EXPECT_FALSE(tab.panel()->selectMemoryPoint(4096, 1));

  // The decode slope per model (2 ms per token per 1k of context for attn, flat for gss) and the check.
  EXPECT_TRUE(panel->slopeText().contains("attn +2.0000 (2.00x from L = 256 to 1k)")) << panel->slopeText().toStdString();
  EXPECT_TRUE(panel->slopeText().contains("gss +0.0000 (1.00x from L = 256 to 1k)")) << panel->slopeText().toStdString();
  EXPECT_TRUE(panel->checkText().contains("allocated bytes = formula at every point (6 points)"))
      << panel->checkText().toStdString();

  // TTFT instead of throughput: the same curves, a log axis.
  panel->prefillMetric()->setCurrentIndex(1);
  EXPECT_EQ(panel->prefillCurveCount(), 2);
  EXPECT_EQ(panel->prefillPlot()->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  EXPECT_NEAR(panel->prefillPlot()->plot()->graph(0)->data()->at(2)->value, 102.4, 1e-9);

  // CSV: a header and one row per point.
  QTemporaryDir dir;
  const QString csv = dir.filePath("inference.csv");
  ASSERT_TRUE(panel->exportCsv(csv));
  QFile f(csv);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_EQ(QString::fromUtf8(f.readAll()).trimmed().split('\n').size(), 7);
}

// A larger batch is its own dashed curve; a mismatch between allocated and formula bytes is said.
TEST(InferenceTab, LargerBatchesAreDashedAndAFormulaMismatchIsSaid) {
  pha::test::TempProject tp;
  auto points = twoModelsAtThreeLengths();
  for (std::int64_t L : {256, 512}) points.push_back(point("attn", L, 4));
  points.back().memory.kv_formula += 4096;  // attn, L = 512, batch 4
  pha::store::store_inference_results(tp.store(), "p", points);
  InferenceTab tab;
  tab.setProject(QString::fromStdString(tp.dir().string()), "p", QString::fromStdString(tp.store()));
  const InferencePanel* panel = tab.panel();
  EXPECT_EQ(panel->tableRows(), 8);
  ASSERT_EQ(panel->decodeCurveCount(), 3);
  QCustomPlot* plot = panel->decodePlot()->plot();
  EXPECT_EQ(plot->graph(0)->pen().style(), Qt::SolidLine);
  EXPECT_EQ(plot->graph(1)->name(), "attn, batch 4");
  EXPECT_EQ(plot->graph(1)->pen().style(), Qt::DashLine);
  EXPECT_EQ(plot->graph(0)->pen().color(), plot->graph(1)->pen().color()) << "one colour per model";
  EXPECT_TRUE(panel->checkText().contains("attn at L = 512, batch 4")) << panel->checkText().toStdString();
  ASSERT_TRUE(tab.panel()->selectMemoryPoint(512, 4));
  ASSERT_EQ(panel->memoryChart()->bars().size(), 1u);  // gss was not measured at batch 4
  EXPECT_TRUE(panel->memoryChart()->bars()[0].tooltip.contains("allocated, formula")) <<
      panel->memoryChart()->bars()[0].tooltip.toStdString();
  EXPECT_TRUE(panel->slopeText().contains("batch 4: attn")) << panel->slopeText().toStdString();
}

// In the window: the tab follows what `pha bench inference` writes into the open project's store,
// the Training tab keeps listing only training profiles, and a picked inference run says where
// its figures are.
TEST(InferenceTab, TheWindowFollowsTheStoreAndKeepsTrainingProfilesApart) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  std::int64_t profileId = 0;
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.project = "test";
    nr.name = "profile: test";
    nr.kind = pha::store::RunKind::Profile;
    nr.config_json = R"({"profile": {"model": "test"}})";
    profileId = s.create_run(nr);
    pha::store::RunWriter wr(s, profileId);
    wr.perf({32, 2, 5000.0, 100000000, "cpu", "train", "median of 1"});
    wr.finish(pha::store::RunStatus::Finished);
  }
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string())));
  const Docks& d = w.docks();
  ASSERT_NE(d.inferenceTab, nullptr);
  EXPECT_EQ(d.efficiencyTabs->tabText(d.efficiencyTabs->indexOf(d.inferenceTab)), "Inference");
  EXPECT_EQ(d.inferenceTab->panel()->tableRows(), 0);
  EXPECT_EQ(d.efficiencyPanel->tableRows(), 1);

  // Written by another process's job, as `pha bench inference --project` does.
  const auto ids = pha::store::store_inference_results(tp.store(), "test", twoModelsAtThreeLengths());
  ASSERT_TRUE(QTest::qWaitFor([&] { return d.inferenceTab->panel()->tableRows() == 6; }, 10000))
      << "the Inference tab did not follow the store";
  EXPECT_EQ(d.efficiencyPanel->tableRows(), 1) << "inference runs listed as training profiles";
  EXPECT_EQ(d.efficiencyPanel->curveCount(), 1);
  auto* phases = w.findChild<QComboBox*>("efficiencyPhase");
  ASSERT_NE(phases, nullptr);
  EXPECT_EQ(phases->count(), 1) << "the inference runs' prefill / decode rows offered as training-profile phases";

  ASSERT_TRUE(w.monitor()->showStoredRun(QString::fromStdString(tp.store()), ids[0]));
  EXPECT_TRUE(w.monitor()->shownRunIsInference());
  EXPECT_TRUE(w.findChild<QLabel*>("liveReadout")->text().contains("is an inference benchmark"));
  ASSERT_TRUE(w.monitor()->showStoredRun(QString::fromStdString(tp.store()), profileId));
  EXPECT_FALSE(w.monitor()->shownRunIsInference());
}

TEST(InferenceTab, BadSettingsAreRefusedByName) {
  pha::runtime::InferenceSweep sweep;
  QString error;
  EXPECT_FALSE(applyInferenceSettings({"256,abc", "1", 64, 8}, &sweep, &error));
  EXPECT_TRUE(error.contains("Prompt lengths L") && error.contains("\"abc\"")) << error.toStdString();
  EXPECT_FALSE(applyInferenceSettings({"256,0", "1", 64, 8}, &sweep, &error));
  EXPECT_TRUE(error.contains("seq_lens")) << error.toStdString();
  EXPECT_FALSE(applyInferenceSettings({"256", "", 64, 8}, &sweep, &error));
  EXPECT_TRUE(error.contains("Batch sizes")) << error.toStdString();
  EXPECT_FALSE(applyInferenceSettings({"256", "1", 8, 32}, &sweep, &error));
  EXPECT_TRUE(error.contains("decode_timed")) << error.toStdString();
  EXPECT_EQ(sweep.seq_lens, pha::runtime::InferenceSweep{}.seq_lens) << "a refused setting changed the sweep";
  ASSERT_TRUE(applyInferenceSettings({" 16, 32 ", "1,2", 16, 4}, &sweep, &error)) << error.toStdString();
  EXPECT_EQ(sweep.seq_lens, (std::vector<int64_t>{16, 32}));
  EXPECT_EQ(sweep.batches, (std::vector<int64_t>{1, 2}));

  // The dialog: the engine's defaults, Measure disabled while a field is wrong, the points counted.
  InferenceMeasureDialog dialog({"a", "b"}, QString());
  dialog.setSettings(defaultInferenceSettings());
  EXPECT_TRUE(dialog.isValid());
  // 2 models x (8 L at batch 1 + 6 at batch 8: batch x L above 65,536 is left out)
  EXPECT_TRUE(dialog.message().startsWith("28 point(s)")) << dialog.message().toStdString();
  auto* measure = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  EXPECT_TRUE(measure->isEnabled());
  dialog.setSettings({"256,x", "1", 64, 8});
  EXPECT_FALSE(dialog.isValid());
  EXPECT_FALSE(measure->isEnabled());
  EXPECT_TRUE(dialog.message().contains("\"x\" is not a whole number")) << dialog.message().toStdString();
}

TEST(InferenceTab, AMissingPhaProgramIsSaidNotCrashed) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  InferenceTab tab;
  tab.setProject(QString::fromStdString(tp.dir().string()), "test", QString::fromStdString(tp.store()));
  tab.setProgramFinder([](QString* error) {
    *error = "not found anywhere";
    return QString();
  });
  QSignalSpy errors(&tab, &InferenceTab::errorOccurred);
  EXPECT_FALSE(tab.measure(pha::runtime::InferenceSweep{}));
  EXPECT_EQ(errors.size(), 1);
  EXPECT_TRUE(tab.lastError().contains("not found anywhere")) << tab.lastError().toStdString();
  EXPECT_FALSE(tab.isBusy());
  tab.setBlockedReason("the queue is training");
  EXPECT_FALSE(tab.findChild<QPushButton*>("inferenceMeasure")->isEnabled());
  EXPECT_FALSE(tab.measure(pha::runtime::InferenceSweep{}));
  EXPECT_EQ(tab.lastError(), "the queue is training");
}

namespace {

pha::runtime::InferenceSweep tinySweep(std::vector<int64_t> lengths) {
  pha::runtime::InferenceSweep s;
  s.seq_lens = std::move(lengths);
  s.batches = {1};
  s.generate = 8;
  s.decode_timed = 4;
  s.decode_warmup = 1;
  s.threads = 1;
  return s;
}

}  // namespace

// The real thing: each point a `pha __inference-point` process, the job in a worker thread; the
// GUI thread keeps running (the tab is busy, a timer ticks), the runs are recorded and shown.
TEST(InferenceTab, MeasureRunsTheProjectsModelsInAWorkerThreadAndRefreshes) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  InferenceTab tab;
  tab.setProject(QString::fromStdString(tp.dir().string()), "test", QString::fromStdString(tp.store()));
  tab.setProgramFinder([](QString*) { return QString(PHA_CLI_PATH); });
  QSignalSpy finished(&tab, &InferenceTab::measureFinished);
  int ticks = 0;
  QTimer ticker;
  QObject::connect(&ticker, &QTimer::timeout, [&] { ++ticks; });
  ticker.start(20);
  ASSERT_TRUE(tab.measure(tinySweep({16, 32})));
  EXPECT_TRUE(tab.isBusy());
  EXPECT_FALSE(tab.measure(tinySweep({16})));  // one job at a time
  ASSERT_TRUE(finished.wait(240000)) << tab.statusText().toStdString();
  EXPECT_FALSE(tab.isBusy());
  EXPECT_GT(ticks, 5) << "the GUI thread waited on the job";
  EXPECT_TRUE(tab.statusText().contains("2 of 2 point(s)")) << tab.statusText().toStdString();
  EXPECT_TRUE(tab.lastError().isEmpty()) << tab.lastError().toStdString();
  ASSERT_EQ(tab.panel()->tableRows(), 2);
  EXPECT_NE(cell(tab.panel(), 0, InferencePanel::DecodeMs), "failed");
  EXPECT_EQ(tab.panel()->decodeCurveCount(), 1);
  auto s = pha::store::Store::open(tp.store());
  const auto runs = pha::store::inference_runs(s, "test");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].points.size(), 2u);
  EXPECT_GT(runs[0].points[0].memory.peak, 0);
}

TEST(InferenceTab, CancelStopsTheJobAndKeepsWhatWasMeasured) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  InferenceTab tab;
  tab.setProject(QString::fromStdString(tp.dir().string()), "test", QString::fromStdString(tp.store()));
  tab.setProgramFinder([](QString*) { return QString(PHA_CLI_PATH); });
  QSignalSpy finished(&tab, &InferenceTab::measureFinished);
  ASSERT_TRUE(tab.measure(tinySweep({16, 32, 48, 64})));
  // The first point shows while the job runs (drawn from the live points).
  ASSERT_TRUE(QTest::qWaitFor([&] { return tab.panel()->tableRows() >= 1 || !tab.isBusy(); }, 240000));
  ASSERT_TRUE(tab.isBusy()) << "the job ended before it could be cancelled: " << tab.statusText().toStdString();
  tab.cancel();
  ASSERT_TRUE(finished.size() == 1 || finished.wait(120000));
  EXPECT_TRUE(tab.statusText().startsWith("Cancelled after")) << tab.statusText().toStdString();
  const int rows = tab.panel()->tableRows();
  EXPECT_GE(rows, 1);
  EXPECT_LT(rows, 4);
  auto s = pha::store::Store::open(tp.store());
  const auto runs = pha::store::inference_runs(s, "test");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(static_cast<int>(runs[0].points.size()), rows);
}
