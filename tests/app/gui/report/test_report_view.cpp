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
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>

#include "analysis/report.h"
#include "report_view.h"
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
  const QString heading = v.claimHeading(0)->text();
  EXPECT_TRUE(heading.contains("pha higher than gss-only")) << heading.toStdString();
  EXPECT_TRUE(heading.contains("paper: hybrids win (seed 2)")) << heading.toStdString();
  EXPECT_TRUE(heading.contains("verdict: too few replicas")) << heading.toStdString();
  auto text = [&](int column) { return claims->item(0, column)->text(); };
  EXPECT_TRUE(text(1).contains("pha: 0.8500 ± 0.0500 (n=3) [0.7258, 0.9742]"))
      << text(1).toStdString();  // t(0.975, 2) = 4.3027: 0.85 -+ 4.3027 * 0.05 / sqrt(3)
  EXPECT_TRUE(text(1).contains("gss-only: 0.3250 ± 0.0354 (n=2)"));
  EXPECT_EQ(text(2), "pha - gss-only: 0.5250") << "no interval: a side has two seeds";
  EXPECT_EQ(text(4), "-") << "no test, no p";
  EXPECT_EQ(text(7), "too few replicas");
  EXPECT_TRUE(text(8).contains("gss-only has 2 replicas with this metric (a verdict needs 3 or more)"))
      << text(8).toStdString();
  EXPECT_EQ(claims->horizontalHeaderItem(8)->text(), "reason") << "the reason is a column, not only a tooltip";
  QTableWidget* eff = v.efficiencyTable();
  ASSERT_EQ(eff->rowCount(), 2);
  EXPECT_EQ(eff->item(0, 0)->text(), "ssm");  // by family (ssm, attention, hybrid), then size
  EXPECT_EQ(eff->item(0, 2)->text(), "4000");
  EXPECT_EQ(eff->item(1, 1)->text(), "pha");
  EXPECT_EQ(eff->item(1, 3)->text(), "0.8500 ± 0.0500 (n=3)");
  EXPECT_EQ(eff->item(1, 4)->text(), "[0.7258, 0.9742]");

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
  EXPECT_EQ(after->item(0, 4)->toolTip(), "Holm, m = 1");
  EXPECT_TRUE(cell(5).startsWith("MDE ")) << cell(5).toStdString();
  EXPECT_EQ(cell(6), "2e+05 tokens per replica, 40 tokens/parameter") << "200,000 tokens over pha's 5000 parameters";
  EXPECT_EQ(cell(7), "holds");
  EXPECT_TRUE(cell(8).startsWith("the difference is above 0, adjusted p")) << cell(8).toStdString();
  EXPECT_TRUE(v.claimsTitle()->text().contains("Holm (1979)")) << v.claimsTitle()->text().toStdString();

  // Export: the view's report through analysis::render_html, i.e. what pha report writes.
  const QString path = dir.path() + "/exported.html";
  QString error;
  ASSERT_TRUE(v.exportHtml(path, &error)) << error.toStdString();
  QFile exported(path);
  ASSERT_TRUE(exported.open(QIODevice::ReadOnly));
  const QString html = QString::fromUtf8(exported.readAll());
  EXPECT_EQ(html.toStdString(), pha::analysis::render_html(*v.report()));
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
