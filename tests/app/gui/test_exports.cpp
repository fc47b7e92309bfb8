// Image and data export through the interactive path (the dialogs replaced by answers, as a
// user would give them): the folder and the image settings are remembered, PNGs have the
// chosen size and DPI, the title is drawn, and the mixer heatmap has no stray legend box.
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QFileInfo>
#include <QRegularExpression>

#include <QAction>

#include "widgets/curve_plot.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "gui/docks.h"
#include "gui/main_window.h"
#include "widgets/mixer_panel.h"
#include "gui/monitor/run_monitor.h"
#include "store_fixture.h"
#include "widgets/export_menu.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/plot_export.h"

using namespace pha::gui;

namespace {

// Answers the two export questions: the path (in `folder`, named by the suggestion) and the
// image options (left as proposed, which records what was proposed).
struct Answers {
  QString folder;
  QString suggested;
  pha::widgets::ImageExportOptions proposed;
  int asked = 0;
  Answers() {
    pha::widgets::setExportPrompts({[this](QWidget*, const QString& suggestion, const QStringList&, QString*) {
                        suggested = suggestion;
                        return folder.isEmpty() ? QString() : folder + "/" + QFileInfo(suggestion).fileName();
                      },
                      [this](QWidget*, pha::widgets::ImageExportOptions* o) {
                        proposed = *o;
                        ++asked;
                        return true;
                      }});
  }
  ~Answers() { pha::widgets::setExportPrompts({}); }
};

void fill(pha::widgets::CurvePlot& p) {
  p.resize(700, 400);
  for (int i = 1; i <= 50; ++i) p.appendPoint("train/loss", i, i, i, 3.0 - 0.02 * i);
  p.replotLater();
}

}  // namespace

TEST(Export, RemembersTheFolderAndWritesTheChosenSizeAndDpi) {
  QSettings().clear();
  pha::widgets::CurvePlot p("loss (nats/token)");
  fill(p);
  QTemporaryDir a, b;
  Answers answers;
  answers.folder = a.path();
  const pha::widgets::ExportSource source{"loss", {}, [] { return QString("pha-tiny: loss, step 50"); }, {}};
  const QString first = pha::widgets::exportInteractively(nullptr, p.plot(), source);
  ASSERT_EQ(first, a.filePath("pha-tiny-loss-step-50.png"));
  EXPECT_EQ(answers.proposed.size, QSize(1600, 900));
  EXPECT_EQ(answers.proposed.dpi, 192);
  EXPECT_EQ(answers.proposed.title, "pha-tiny: loss, step 50");
  const QImage image(first);
  EXPECT_EQ(image.size(), QSize(1600, 900));
  EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 192, 1);

  // The next export opens in that folder, with the last format.
  answers.folder = b.path();
  const QString second = pha::widgets::exportInteractively(nullptr, p.plot(), source);
  EXPECT_TRUE(answers.suggested.startsWith(a.path() + "/")) << answers.suggested.toStdString();
  EXPECT_TRUE(answers.suggested.endsWith(".png"));
  EXPECT_EQ(second, b.filePath("pha-tiny-loss-step-50.png"));
  answers.folder.clear();  // cancelled: nothing written, nothing asked
  EXPECT_TRUE(pha::widgets::exportInteractively(nullptr, p.plot(), source).isEmpty());
  EXPECT_TRUE(answers.suggested.startsWith(b.path() + "/"));
  EXPECT_EQ(answers.asked, 2);
}

TEST(Export, TheTitleIsDrawnAndTheLayoutRestored) {
  pha::widgets::CurvePlot p("loss");
  fill(p);
  QTemporaryDir dir;
  QString error;
  const int rows = p.plot()->plotLayout()->rowCount();
  ASSERT_TRUE(pha::widgets::exportPlot(p.plot(), dir.filePath("t.svg"), pha::widgets::ImageExportOptions{QSize(800, 450), 96, "pha-tiny: loss, step 50"},
                         &error))
      << error.toStdString();
  QFile svg(dir.filePath("t.svg"));
  ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
  EXPECT_TRUE(svg.readAll().contains("pha-tiny: loss, step 50"));
  EXPECT_EQ(p.plot()->plotLayout()->rowCount(), rows) << "the title row is removed after the export";
  EXPECT_FALSE(pha::widgets::exportPlot(p.plot(), dir.filePath("t.png"), pha::widgets::ImageExportOptions{QSize(8, 8), 96, {}}, &error));
  EXPECT_TRUE(error.contains("out of range")) << error.toStdString();
}

// The issue: the heatmap PNG had an empty white legend box over the layer-0 FFN cell.
TEST(Export, HeatmapImageHasNoLegendBox) {
  pha::widgets::MixerHeatmap h;
  h.resize(520, 620);
  h.show();
  h.setMatrix(4, 3, std::vector<float>(12, 1.0f / 3));
  h.plot()->replot();
  const QRect cells = h.plot()->axisRect()->rect().adjusted(3, 3, -3, -3);
  QTemporaryDir dir;
  QString error;
  ASSERT_TRUE(pha::widgets::exportPlot(h.plot(), dir.filePath("mixer.png"), pha::widgets::ImageExportOptions{h.plot()->size(), 96, {}}, &error))
      << error.toStdString();
  const QImage image(dir.filePath("mixer.png"));
  ASSERT_EQ(image.size(), h.plot()->size());
  int white = 0;  // every cell is one colour of the viridis scale; a legend box is white
  for (int x = cells.left(); x <= cells.right(); ++x)
    for (int y = cells.top(); y <= cells.bottom(); ++y)
      if (image.pixel(x, y) == qRgb(255, 255, 255)) ++white;
  EXPECT_EQ(white, 0);
}

// The live heatmap's CSV holds every snapshot of the run: its suggested name names no step (it
// was "pha-tiny-mixer-weights-step-65.csv"), while the image's title still names the step shown.
TEST(Export, TheMixerCsvIsNotNamedAfterTheStepShown) {
  QSettings().clear();
  QSettings().setValue("export/lastSuffix", "csv");
  pha::test::StoreFixture store;
  pha::test::FixtureRun run;
  run.steps = 20;
  run.mixerEvery = 5;
  const auto id = store.add(run);
  MainWindow w;
  ASSERT_TRUE(w.monitor()->showStoredRun(store.path(), id)) << w.monitor()->errorText().toStdString();
  QTemporaryDir dir;
  Answers answers;
  answers.folder = dir.path();
  const pha::widgets::ExportSource source = w.monitor()->mixerExport();
  EXPECT_TRUE(source.title().contains("step 20")) << source.title().toStdString();
  const QString path = pha::widgets::exportInteractively(nullptr, w.docks().mixerPanel->heatmap()->plot(), source);
  ASSERT_FALSE(path.isEmpty());
  EXPECT_EQ(QFileInfo(path).fileName(), "pha-tiny-mixer-weights.csv");
  QFile csv(path);
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(csv.readAll());
  for (int step : {5, 10, 15, 20})
    EXPECT_TRUE(text.contains(QString(",%1,").arg(step))) << "step " << step << " (layer,branch,step,weight)\n"
                                                          << text.toStdString();
}

// File > Export run report writes into the folder the user names, creating it (a folder chooser
// refused one that did not exist yet).
TEST(Export, TheRunReportGoesIntoAFolderThatDoesNotExistYet) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.name = "test";
    pha::store::RunWriter w(s, s.create_run(nr));
    for (int i = 1; i <= 10; ++i) w.metric("train/loss", i, i, i, 3.0 - 0.1 * i);
    w.finish(pha::store::RunStatus::Finished);
  }
  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string())));
  ASSERT_TRUE(w.selectRunByName("test"));
  QTemporaryDir dir;
  const QString target = dir.filePath("reports/new/run-report");
  QString suggested;
  pha::widgets::setExportPrompts({[&](QWidget*, const QString& s, const QStringList&, QString*) {
                      suggested = s;
                      return target;
                    },
                    {}});
  QAction* action = nullptr;
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == "Export run &report...") action = a;
  ASSERT_NE(action, nullptr);
  action->trigger();
  pha::widgets::setExportPrompts({});
  EXPECT_TRUE(suggested.endsWith("/run-1-report")) << suggested.toStdString();
  EXPECT_TRUE(QFileInfo::exists(target + "/index.html")) << w.lastError().toStdString();
  EXPECT_TRUE(QFileInfo::exists(target + "/metrics.csv"));
}
