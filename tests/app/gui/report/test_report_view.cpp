// The Report dock's view on a project whose store holds seeded replicas with known final
// accuracies: one table per claim under a heading (the claim, its verdict, the paper's figure)
// shows the measured means ± std, the effect with its interval, the test, p raw / adjusted, the
// MDE, the budget, the verdict and its reason in full (too few replicas with two seeds on a
// side); the statistics line names the correction; the parameter-efficiency table has one row
// per group; a refresh picks up a run that finished; and "Export report as HTML" writes what
// `pha report --format html` prints.
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QRegularExpression>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTest>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "analysis/report.h"
#include "analysis/report_document.h"
#include "project/project.h"
#include "gui/report/report_page.h"
#include "gui/report/report_view.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;
namespace ps = pha::store;

namespace {

const char* kProject = R"json({
  "name": "study",
  "data": {"kind": "task",
           "train": {"task": "selective_copy", "seq_len": 20, "vocab_size": 16, "num_tokens_to_copy": 4,
                     "num_examples": 64, "seed": 0}},
  "model": {"d_model": 16, "n_layers": 2},
  "training": {"steps": 10, "warmup_steps": 2},
  "variants": ["pha", "gss-only"],
  "seeds": [0, 1, 2],
  "claims": [{"claim": "higher_is_better", "metric": "accuracy", "better": "pha", "than": "gss-only",
              "paper": "hybrids win (seed 2)"}]
})json";

void writeReplica(ps::Store& s, const std::string& group, std::int64_t seed, double accuracy, std::int64_t params) {
  ps::NewRun nr;
  nr.project = "study";
  nr.name = group + "/seed=" + std::to_string(seed);
  nr.variant = group;
  nr.group = group;
  nr.seed = seed;
  nr.n_params = params;
  const std::int64_t id = s.create_run(nr);
  ps::RunWriter w(s, id);
  w.metric("train/loss", 10, 200000, 0, 1.0 - accuracy);
  w.metric("test/test/accuracy", 10, 200000, 0, accuracy);
  w.finish(ps::RunStatus::Finished);
}

// A label block's text as shown (its rich text as plain text).
QString shownText(const QLabel* l) {
  if (l->textFormat() == Qt::PlainText) return l->text();
  QTextDocument doc;
  doc.setHtml(l->text());
  return doc.toPlainText();
}

// The first paragraph or list of the dock's page whose shown text contains `needle` ("" if none).
QString blockText(const ReportView& v, const QString& needle) {
  for (QWidget* w : v.page()->blockWidgets())
    if (auto* l = qobject_cast<QLabel*>(w); l && shownText(l).contains(needle)) return shownText(l);
  return {};
}

bool waitReady(ReportView& v) {
  return QTest::qWaitFor([&] { return !v.isBuilding(); }, 20000);
}

// The HTML without its "generated <time>" stamp (two builds may fall in different minutes).
QString withoutTime(QString html) {
  return html.replace(QRegularExpression("generated \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}"), "generated T");
}

}  // namespace

TEST(ReportView, ShowsTheClaimsAndEfficiencyOfTheProjectAndExportsPhaReportsHtml) {
  QTemporaryDir dir;
  {
    QFile f(dir.path() + "/project.json");
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(kProject);
  }
  ReportView v;
  v.setProject(dir.path());
  ASSERT_TRUE(waitReady(v));
  EXPECT_EQ(v.report(), nullptr);
  EXPECT_TRUE(v.message().contains("no run store yet")) << v.message().toStdString();

  {
    auto s = ps::Store::open((dir.path() + "/runs.sqlite").toStdString());
    const double pha[] = {0.80, 0.85, 0.90}, gss[] = {0.30, 0.35, 0.40};
    for (int seed = 0; seed < 3; ++seed) writeReplica(s, "pha", seed, pha[seed], 5000);
    for (int seed = 0; seed < 2; ++seed) writeReplica(s, "gss-only", seed, gss[seed], 4000);
  }
  QSignalSpy ready(&v, &ReportView::reportReady);
  v.refresh();
  ASSERT_TRUE(waitReady(v));
  EXPECT_EQ(ready.count(), 1);
  ASSERT_NE(v.report(), nullptr) << v.message().toStdString();
  ASSERT_EQ(v.claimTableCount(), 1);
  QTableWidget* claims = v.claimTable(0);
  ASSERT_EQ(claims->rowCount(), 1);
  EXPECT_FALSE(blockText(v, "pha higher than gss-only").isEmpty());
  const QString facts = blockText(v, "paper: ");
  EXPECT_TRUE(facts.contains("paper: hybrids win (seed 2)")) << facts.toStdString();
  EXPECT_TRUE(facts.contains("verdict: too few replicas")) << facts.toStdString();
  auto text = [&](int column) { return claims->item(0, column)->text(); };
  EXPECT_TRUE(text(1).contains("pha: 0.8500 ± 0.0500 (n=3) [0.7258, 0.9742]"))
      << text(1).toStdString();  // t(0.975, 2) = 4.3027: 0.85 -+ 4.3027 * 0.05 / sqrt(3)
  EXPECT_TRUE(text(1).contains("gss-only: 0.3250 ± 0.0354 (n=2)"));
  EXPECT_EQ(text(2), "pha - gss-only: 0.5250") << "no interval: a side has two seeds";
  EXPECT_EQ(text(4), "-") << "no test, no p";
  EXPECT_TRUE(text(7).startsWith("too few replicas: "));
  EXPECT_TRUE(text(7).contains("gss-only has 2 replicas with this metric (a verdict needs 3 or more)"))
      << "the reason inline, not only a tooltip: " << text(7).toStdString();
  QTableWidget* eff = v.efficiencyTable();
  ASSERT_NE(eff, nullptr);
  ASSERT_EQ(eff->rowCount(), 2);
  EXPECT_EQ(eff->item(0, 0)->text(), "ssm");  // by family (ssm, attention, hybrid), then size
  EXPECT_EQ(eff->item(0, 2)->text(), "4000");
  EXPECT_EQ(eff->item(1, 1)->text(), "pha");
  EXPECT_EQ(eff->item(1, 3)->text(), "0.8500 ± 0.0500 (n=3) [0.7258, 0.9742]");

  // The third gss-only seed finishes: the refreshed report has it (n = 3, a narrower interval).
  {
    auto s = ps::Store::open((dir.path() + "/runs.sqlite").toStdString());
    writeReplica(s, "gss-only", 2, 0.40, 4000);
  }
  v.refresh();
  ASSERT_TRUE(waitReady(v));
  ASSERT_EQ(v.claimTableCount(), 1);
  QTableWidget* after = v.claimTable(0);
  auto cell = [&](int column) { return after->item(0, column)->text(); };
  EXPECT_TRUE(cell(1).contains("gss-only: 0.3500 ± 0.0500 (n=3)")) << cell(1).toStdString();
  EXPECT_TRUE(cell(2).startsWith("pha - gss-only: 0.5000 [")) << cell(2).toStdString();
  EXPECT_EQ(cell(3), "paired by seed, n=3") << "both sides ran seeds 0, 1, 2";
  EXPECT_TRUE(cell(4).contains(" / ")) << cell(4).toStdString();
  EXPECT_TRUE(cell(4).endsWith(" (Holm, m = 1)")) << "how p was adjusted, inline: " << cell(4).toStdString();
  EXPECT_TRUE(cell(5).startsWith("MDE ")) << cell(5).toStdString();
  EXPECT_EQ(cell(6), "2e+05 tokens per replica, 40 tokens/parameter") << "200,000 tokens over pha's 5000 parameters";
  EXPECT_TRUE(cell(7).startsWith("holds: the difference is above 0, adjusted p")) << cell(7).toStdString();
  EXPECT_TRUE(blockText(v, "Statistics:").contains("Holm (1979)")) << blockText(v, "Statistics:").toStdString();

  // Export: the view's report through analysis::render_html, i.e. what pha report writes.
  const QString path = dir.path() + "/exported.html";
  QString error;
  ASSERT_TRUE(v.exportHtml(path, &error)) << error.toStdString();
  QFile exported(path);
  ASSERT_TRUE(exported.open(QIODevice::ReadOnly));
  const QString html = QString::fromUtf8(exported.readAll());
  EXPECT_EQ(html.toStdString(), pha::analysis::render_html(*v.report()));
  const int charts = int(v.findChildren<QWidget*>(QRegularExpression("^reportChart-")).size());
  EXPECT_EQ(charts, int(html.count("<svg"))) << "every plot of the export is drawn in the dock";
  QProcess cli;
  cli.start(PHA_CLI_PATH, {"report", dir.path(), "--format", "html"});
  ASSERT_TRUE(cli.waitForFinished(60000));
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  EXPECT_EQ(withoutTime(html).toStdString(), withoutTime(QString::fromUtf8(cli.readAllStandardOutput())).toStdString());
}

TEST(ReportView, ABadProjectSaysWhyAndExportsNothing) {
  QTemporaryDir dir;
  {
    QFile f(dir.path() + "/project.json");
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"data": {"kind": "task", "train": {"task": "selective_copy"}}, "claims": [{"claim": "nope"}]})");
  }
  ReportView v;
  v.setProject(dir.path());
  ASSERT_TRUE(waitReady(v));
  EXPECT_EQ(v.report(), nullptr);
  EXPECT_TRUE(v.message().contains("claims[0].claim")) << v.message().toStdString();
  QString error;
  EXPECT_FALSE(v.exportHtml(dir.path() + "/x.html", &error));
  EXPECT_FALSE(QFile::exists(dir.path() + "/x.html"));
}

namespace {

// A tuned text project (two learning rates per variant, three seeds) with a sandwich claim: the
// report has claim tables with reasons, a tuning table per variant with its edge warning, a
// per-layer mixer table and a chart.
const char* kTunedProject = R"json({
  "name": "tuned",
  "data": {"kind": "file", "path": "/nonexistent/corpus.txt", "tokenizer": {"kind": "byte"}},
  "model": {"d_model": 16, "n_layers": 4},
  "training": {"steps": 10, "warmup_steps": 2},
  "variants": ["pha", "transformer"],
  "seeds": [0, 1, 2],
  "tune": {"training.lr": [0.001, 0.003], "select": "val/loss"},
  "claims": [{"claim": "lower_is_better", "metric": "val/loss", "better": "pha", "than": "transformer",
              "paper": "hybrids reach a lower loss"},
             {"claim": "mixer_sandwich", "run": "pha"}]
})json";

// GSS largest in the edge layers, attention in the middle ones (4 layers x gss / attn / ffn).
std::vector<float> sandwich(float k) {
  return {0.6f, 0.2f, 0.2f, 0.2f + k, 0.6f - k, 0.2f, 0.25f, 0.55f, 0.2f, 0.55f, 0.25f, 0.2f};
}

// Every planned run finished: pha is best at lr=0.003 and the transformer at lr=0.001, each at an
// end of the values tried.
void writeTunedStore(const QString& dir) {
  const auto project = pha::project::load_project((dir + "/project.json").toStdString(), {false});
  auto s = ps::Store::open((dir + "/runs.sqlite").toStdString());
  for (const auto& plan : project.runs) {
    const bool pha = plan.group.rfind("pha", 0) == 0;
    const bool high = plan.tune_point.find("0.003") != std::string::npos;
    ps::NewRun nr;
    nr.project = "tuned";
    nr.name = plan.name;
    nr.variant = pha ? "pha" : "transformer";
    nr.group = plan.group;
    nr.seed = plan.seed;
    nr.n_params = pha ? 5000 : 4000;
    const std::int64_t id = s.create_run(nr);
    ps::RunWriter w(s, id);
    const double loss = (pha ? 2.0 : 2.3) + ((pha == high) ? 0.0 : 0.2) + 0.03 * double(plan.seed);
    w.metric("train/loss", 10, 200000, 0, loss + 0.1);
    w.metric("val/loss", 10, 200000, 0, loss);
    w.metric("test/loss", 10, 200000, 0, loss + 0.05);
    if (pha) w.mixer({10, 4, 3, sandwich(0.01f * float(plan.seed))});
    w.finish(ps::RunStatus::Finished);
  }
}

// A Markdown table row of cells, as `pha report` prints it.
QString markdownRow(const QStringList& cells) {
  QStringList escaped;
  for (const QString& c : cells) escaped << QString::fromStdString(pha::analysis::markdown_cell(c.toStdString()));
  return "| " + escaped.join(" | ") + " |";
}

// What a reader sees of the dock's page, a line per heading, paragraph, list item and table row
// (the header included), in order; charts left out (Markdown has none).
QStringList dockLines(const ReportView& v) {
  QStringList lines;
  for (QWidget* w : v.page()->blockWidgets()) {
    if (auto* l = qobject_cast<QLabel*>(w)) {
      for (QString line : shownText(l).split('\n')) lines << (line.startsWith("• ") ? line.mid(2) : line);
    } else if (auto* t = qobject_cast<QTableWidget*>(w)) {
      QStringList header;
      for (int c = 0; c < t->columnCount(); ++c) header << t->horizontalHeaderItem(c)->text();
      lines << markdownRow(header);
      for (int r = 0; r < t->rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < t->columnCount(); ++c) row << (t->item(r, c) ? t->item(r, c)->text() : QString());
        lines << markdownRow(row);
      }
    }
  }
  return lines;
}

// The same of `pha report`'s Markdown: its marks (#, -, **, `) and table rules taken away.
QStringList markdownLines(const QString& md) {
  QStringList lines;
  for (QString line : md.split('\n')) {
    if (line.isEmpty() || line.startsWith("| --- |")) continue;
    line.remove("**").remove('`');
    if (line.startsWith('#')) line = line.mid(line.indexOf(' ') + 1);
    else if (line.startsWith("- ")) line = line.mid(2);
    lines << line;
  }
  return lines;
}

}  // namespace

// The dock shows what `pha report` prints: every heading, paragraph, list item and table row of
// the Markdown, in its order, with the same text (the two render one document). Among them the
// tuning tables with the edge warning, the verdicts' reasons in their cells and the per-layer
// mixer table; the page scrolls and its tables fit the width at 1280 x 720.
TEST(ReportView, ShowsEverySectionTableAndRowThatPhaReportPrints) {
  QTemporaryDir dir;
  {
    QFile f(dir.path() + "/project.json");
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(kTunedProject);
  }
  writeTunedStore(dir.path());
  ReportView v;
  v.resize(1280, 720);
  v.show();
  v.setProject(dir.path());
  ASSERT_TRUE(waitReady(v));
  ASSERT_NE(v.report(), nullptr) << v.message().toStdString();
  QProcess cli;
  cli.start(PHA_CLI_PATH, {"report", dir.path(), "--format", "md"});
  ASSERT_TRUE(cli.waitForFinished(60000));
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  const QString md = QString::fromUtf8(cli.readAllStandardOutput());

  const QStringList want = markdownLines(withoutTime(md));
  const QStringList shown = dockLines(v);
  for (int i = 0; i < std::max(want.size(), shown.size()); ++i) {
    const QString a = i < want.size() ? withoutTime(want[i]) : "(none)";
    const QString b = i < shown.size() ? withoutTime(shown[i]) : "(none)";
    ASSERT_EQ(b.toStdString(), a.toStdString()) << "line " << i << " of the dock differs from pha report's";
  }

  // What the issue found missing: the tuning tables and their warning, reasons, the mixer table.
  ASSERT_EQ(v.report()->tuning.size(), 2u);
  for (const char* id : {"tuning1", "tuning2"}) {
    ASSERT_NE(v.table(id), nullptr) << id;
    EXPECT_EQ(v.table(id)->rowCount(), 2) << id;
  }
  EXPECT_TRUE(shown.contains("the chosen training.lr is at the edge of the values tried: a better one may lie beyond"))
      << shown.join('\n').toStdString();
  QTableWidget* compare = v.claimTable(0);
  ASSERT_NE(compare, nullptr);
  EXPECT_TRUE(compare->item(0, 7)->text().startsWith("holds: ")) << compare->item(0, 7)->text().toStdString();
  QTableWidget* mixer = v.table("mixer2");
  ASSERT_NE(mixer, nullptr);
  EXPECT_EQ(mixer->rowCount(), 4) << "one row per layer";
  EXPECT_TRUE(mixer->item(0, 1)->text().startsWith("0.6000 ± ")) << mixer->item(0, 1)->text().toStdString();
  EXPECT_NE(v.findChild<QWidget*>("reportChart-mixer2"), nullptr) << "the mixer plot is drawn";

  // Readable at 1280 x 720: the page scrolls, every table shows all its rows and fits the width.
  auto* scroll = v.findChild<QScrollArea*>("reportScroll");
  ASSERT_NE(scroll, nullptr);
  EXPECT_TRUE(QTest::qWaitFor([&] { return scroll->verticalScrollBar()->maximum() > 0; }, 5000)) << "the page scrolls";
  for (QTableWidget* t : v.page()->tables()) {
    int rows = t->horizontalHeader()->height();
    for (int r = 0; r < t->rowCount(); ++r) rows += t->rowHeight(r);
    EXPECT_GE(t->height(), rows) << t->objectName().toStdString() << ": rows hidden";
    EXPECT_LE(t->horizontalHeader()->length(), t->viewport()->width() + 1) << t->objectName().toStdString();
  }
}
