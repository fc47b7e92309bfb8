// Export: PNG, PDF (vector), SVG with the legend, CSV without point caps, and run reports.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTextStream>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "compare_fixture.h"
#include "gui/compare/compare_widget.h"
#include "gui/compare/curves_tab.h"
#include "gui/compare/pareto_tab.h"
#include "widgets/plot_export.h"
#include "gui/compare/run_report.h"

using namespace pha::gui;

namespace {

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList lines(const QString& path) {
  QStringList out = QString::fromUtf8(readAll(path)).split('\n');
  if (!out.isEmpty() && out.back().isEmpty()) out.removeLast();
  return out;
}

struct Plotted {
  CompareFixture f;
  CompareWidget w;
  Plotted() {
    w.resize(1000, 700);
    w.setRuns({RunRef{f.a.storePath, f.a.id}, RunRef{f.b.storePath, f.b.id}});
    w.curvesTab()->setSelectedKeys({"train/loss"});
  }
};

}  // namespace

TEST(PlotExport, PngHasTheRequestedSize) {
  Plotted p;
  const QString path = p.f.dir() + "/curves.png";
  QString error;
  ASSERT_TRUE(pha::widgets::exportPlot(p.w.curvesTab()->plot(), path, &error, QSize(640, 400))) << error.toStdString();
  QImage image(path);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), QSize(640, 400));
  // Something was drawn: not one flat colour.
  QSet<QRgb> colours;
  for (int x = 0; x < image.width(); x += 7)
    for (int y = 0; y < image.height(); y += 7) colours.insert(image.pixel(x, y));
  EXPECT_GT(colours.size(), 3);
}

TEST(PlotExport, PdfIsVectorAndSvgCarriesTheLegend) {
  Plotted p;
  QString error;
  const QString pdf = p.f.dir() + "/curves.pdf";
  ASSERT_TRUE(pha::widgets::exportPlot(p.w.curvesTab()->plot(), pdf, &error, QSize(640, 400))) << error.toStdString();
  const QByteArray pdfBytes = readAll(pdf);
  EXPECT_TRUE(pdfBytes.startsWith("%PDF")) << pdfBytes.left(16).toStdString();
  EXPECT_GT(pdfBytes.size(), 1000);
  // Vector: the page is drawn with path operators, no embedded raster image.
  EXPECT_FALSE(pdfBytes.contains("/Subtype /Image"));
  EXPECT_LT(pdfBytes.size(), 400 * 1024);

  const QString svg = p.f.dir() + "/curves.svg";
  ASSERT_TRUE(pha::widgets::exportPlot(p.w.curvesTab()->plot(), svg, &error, QSize(640, 400))) << error.toStdString();
  const QByteArray svgBytes = readAll(svg);
  EXPECT_TRUE(svgBytes.contains("<svg"));
  EXPECT_TRUE(svgBytes.contains("run-a"));  // legend entries are text in the SVG
  EXPECT_TRUE(svgBytes.contains("run-b"));
  EXPECT_FALSE(svgBytes.contains("<image"));

  EXPECT_FALSE(pha::widgets::exportPlot(p.w.curvesTab()->plot(), p.f.dir() + "/curves.gif", &error));
  EXPECT_TRUE(error.contains("gif"));
  EXPECT_FALSE(pha::widgets::exportPlot(p.w.curvesTab()->plot(), p.f.dir() + "/no/such/dir/x.png", &error));
}

TEST(PlotExport, CurveCsvHasEveryStoredPoint) {
  Plotted p;
  const QString path = p.f.dir() + "/curves.csv";
  QString error;
  ASSERT_TRUE(p.w.curvesTab()->writeCsv(path, &error)) << error.toStdString();
  const QStringList rows = lines(path);
  ASSERT_EQ(rows.size(), 1 + 50 + 50);
  EXPECT_EQ(rows[0], "run_id,key,step,tokens,wall_ms,value") << "the engine's metrics CSV (pha export)";
  EXPECT_EQ(rows[1], QString::number(p.f.a.id) + ",train/loss,0,0,0,5");
  EXPECT_TRUE(rows[51].startsWith(QString::number(p.f.b.id) + ",train/loss,")) << rows[51].toStdString();
  QString error2;
  const QString blocked = path + "/curves.csv";  // its folder would be the file written above
  EXPECT_FALSE(p.w.curvesTab()->writeCsv(blocked, &error2));
  EXPECT_TRUE(error2.startsWith(blocked + ": ")) << error2.toStdString();

  // The plotted-graphs CSV of the Pareto chart: one row per point (the front needs two points).
  const QString pareto = p.f.dir() + "/pareto.csv";
  ASSERT_TRUE(pha::widgets::exportPlot(p.w.paretoTab()->plot(), pareto, &error)) << error.toStdString();
  const QStringList prow = lines(pareto);
  EXPECT_EQ(prow[0], "series,x,y");
  EXPECT_EQ(prow.size(), 1 + 2);
}

TEST(RunReport, WritesIndexHtmlAndItsFiles) {
  CompareFixture f;
  const QString out = f.dir() + "/report-a";
  QString error;
  ASSERT_TRUE(writeRunReport(f.a.storePath, f.a.id, out, &error)) << error.toStdString();
  const QString html = QString::fromUtf8(readAll(out + "/index.html"));
  EXPECT_TRUE(html.contains("<title>Run report: run-a</title>"));
  EXPECT_TRUE(html.contains("data:image/png;base64,"));
  EXPECT_TRUE(html.contains("mqar"));
  const QStringList metrics = lines(out + "/metrics.csv");
  EXPECT_EQ(metrics.size(), 1 + 50 + 5);
  EXPECT_EQ(metrics.value(0), "run_id,key,step,tokens,wall_ms,value");
  EXPECT_EQ(lines(out + "/evals.csv").size(), 1 + 4);
  EXPECT_FALSE(QImage(out + "/curves.png").isNull());
  EXPECT_FALSE(QImage(out + "/mixer.png").isNull());
  EXPECT_TRUE(readAll(out + "/curves.pdf").startsWith("%PDF"));
  EXPECT_EQ(nlohmann::json::parse(readAll(out + "/config.json").toStdString()), f.a.config);

  EXPECT_FALSE(writeRunReport(f.a.storePath, 12345, f.dir() + "/report-x", &error));
  EXPECT_TRUE(error.contains("12345"));
  EXPECT_FALSE(QFileInfo::exists(f.dir() + "/report-x/index.html"));
}
