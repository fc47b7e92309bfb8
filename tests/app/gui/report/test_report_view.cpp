// The Report dock's view on a project whose store holds seeded replicas with known final
// accuracies: the claims table shows the measured means ± std, the effect, its interval, the
// verdict and the paper's figure; the parameter-efficiency table has one row per group; a
// refresh picks up a run that finished; and "Export report as HTML" writes what
// `pha report --format html` prints.
#include <QFile>
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
  w.metric("train/loss", 10, 0, 0, 1.0 - accuracy);
  w.metric("test/test/accuracy", 10, 0, 0, accuracy);
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
  QTableWidget* claims = v.claimsTable();
  ASSERT_EQ(claims->rowCount(), 1);
  EXPECT_TRUE(claims->item(0, 0)->text().contains("pha higher than gss-only")) << claims->item(0, 0)->text().toStdString();
  EXPECT_TRUE(claims->item(0, 2)->text().contains("pha: 0.8500 ± 0.0500 (n=3) [0.7258, 0.9742]"))
      << claims->item(0, 2)->text().toStdString();  // t(0.975, 2) = 4.3027: 0.85 -+ 4.3027 * 0.05 / sqrt(3)
  EXPECT_TRUE(claims->item(0, 2)->text().contains("gss-only: 0.3250 ± 0.0354 (n=2)"));
  EXPECT_EQ(claims->item(0, 3)->text(), "pha - gss-only: 0.5250");
  EXPECT_TRUE(claims->item(0, 4)->text().startsWith("[")) << claims->item(0, 4)->text().toStdString();
  EXPECT_EQ(claims->item(0, 6)->text(), "hybrids win (seed 2)");
  const QString before = claims->item(0, 4)->text();

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
  EXPECT_TRUE(v.claimsTable()->item(0, 2)->text().contains("gss-only: 0.3500 ± 0.0500 (n=3)"));
  EXPECT_NE(v.claimsTable()->item(0, 4)->text(), before);
  EXPECT_EQ(v.claimsTable()->item(0, 5)->text(), "holds");

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
