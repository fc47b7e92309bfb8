// Compare dock over seeded replicas: a group is drawn as its mean curve with a band (±1 std or
// min-max, the Curves tab's choice) aligned by step, and the Metrics table has one column per
// group with mean ± std (n). Every expected number is computed here from the values written.
#include <QComboBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>

#include "gui/compare/compare_groups.h"
#include "gui/compare/compare_widget.h"
#include "widgets/curve_plot.h"
#include "gui/compare/curves_tab.h"
#include "gui/compare/metrics_tab.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;
namespace ps = pha::store;

namespace {

// Group "pha" of project "seeds": seeds 0, 1, 2 finished, train/loss = 5 - 0.05 s + offset over
// steps 0..49 (seed 2 stops at step 39), val/loss once at the end; a failed run of seed 3 in the
// same group; and "transformer", a group of one.
struct SeedStore {
  QTemporaryDir dir;
  QString path;
  QList<RunRef> refs;
  const double offsets[3] = {0.0, 0.3, 0.9};
  const double finals[3] = {2.0, 2.2, 2.6};

  static double trainLoss(int step, double offset) { return 5.0 - 0.05 * step + offset; }

  std::int64_t write(ps::Store& s, const std::string& name, const std::string& group, std::int64_t seed, int steps,
                     double offset, double final, ps::RunStatus status) {
    ps::NewRun nr;
    nr.project = "seeds";
    nr.name = name;
    nr.variant = group;
    nr.group = group;
    nr.seed = seed;
    nr.n_params = 1000;
    nr.device = "cpu";
    const std::int64_t id = s.create_run(nr);
    ps::RunWriter w(s, id);
    for (int step = 0; step < steps; ++step) w.metric("train/loss", step, step * 100, step * 10, trainLoss(step, offset));
    w.metric("val/loss", steps - 1, (steps - 1) * 100, (steps - 1) * 10, final);
    w.finish(status, status == ps::RunStatus::Failed ? "diverged on purpose" : "");
    refs.push_back(RunRef{path, id});
    return id;
  }

  SeedStore() {
    path = dir.path() + "/runs.sqlite";
    auto s = ps::Store::open(path.toStdString());
    for (int seed = 0; seed < 3; ++seed)
      write(s, "pha/seed=" + std::to_string(seed), "pha", seed, seed == 2 ? 40 : 50, offsets[seed], finals[seed],
            ps::RunStatus::Finished);
    write(s, "pha/seed=3", "pha", 3, 10, 1.0, 9.0, ps::RunStatus::Failed);
    write(s, "transformer", "transformer", 0, 50, 0.5, 3.0, ps::RunStatus::Finished);
  }
};

double sampleStd(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x / double(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / double(v.size() - 1));
}

}  // namespace

TEST(CompareGroups, ReplicasOfAGroupFormOneUnitAndEveryOtherRunStaysAlone) {
  SeedStore f;
  StoreCache cache;
  const auto runs = loadRuns(cache, f.refs);
  const std::vector<CompareUnit> units = compareUnits(*runs);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0].label, "pha (3 seeds)");
  EXPECT_TRUE(units[0].grouped);
  EXPECT_EQ(units[0].members, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(units[1].label, "pha/seed=3") << "a failed replica is not part of the mean";
  EXPECT_FALSE(units[1].grouped);
  EXPECT_EQ(units[2].label, "transformer") << "a group of one is a run";
  // Comparing one replica of a group alone: no group.
  const auto one = loadRuns(cache, {f.refs[0], f.refs[4]});
  EXPECT_EQ(compareUnits(*one).size(), 2u);
  EXPECT_FALSE(compareUnits(*one)[0].grouped);
}

TEST(CompareGroups, CurvesDrawAGroupAsItsMeanWithAStdOrMinMaxBandAlignedByStep) {
  SeedStore f;
  CompareWidget w;
  w.resize(1000, 700);
  w.setRuns(f.refs);
  CurvesTab* curves = w.curvesTab();
  curves->setSelectedKeys({"train/loss"});
  curves->curvePlot()->setSmoothing(0.0);
  EXPECT_EQ(curves->replicaView(), ReplicaView::MeanStdBand) << "the default";
  ASSERT_EQ(curves->curveCount(), 3);
  EXPECT_EQ(curves->curveName(0), "pha (3 seeds)");
  EXPECT_EQ(curves->curveName(2), "transformer");
  const std::vector<double> mean = curves->curveValues(0), low = curves->bandLow(0), high = curves->bandHigh(0);
  ASSERT_EQ(mean.size(), 50u) << "every step any replica recorded";
  ASSERT_EQ(low.size(), 50u);
  ASSERT_EQ(high.size(), 50u);
  for (int step = 0; step < 50; ++step) {
    std::vector<double> v;
    for (int seed = 0; seed < 3; ++seed)
      if (seed < 2 || step < 40) v.push_back(SeedStore::trainLoss(step, f.offsets[seed]));
    double m = 0;
    for (double x : v) m += x / double(v.size());
    const double sd = sampleStd(v);
    EXPECT_NEAR(mean[step], m, 1e-12) << "step " << step;
    EXPECT_NEAR(low[step], m - sd, 1e-12) << "step " << step;
    EXPECT_NEAR(high[step], m + sd, 1e-12) << "step " << step;
  }
  EXPECT_TRUE(curves->bandLow(2).empty()) << "a single run has no band";
  EXPECT_EQ(curves->curveValues(2).size(), 50u);

  // The user's choice: min-max, from the combo box in the tab.
  w.findChild<QComboBox*>("replicaBandCombo")->setCurrentIndex(1);
  EXPECT_EQ(curves->replicaView(), ReplicaView::MeanMinMaxBand);
  const std::vector<double> lo = curves->bandLow(0), hi = curves->bandHigh(0);
  ASSERT_EQ(lo.size(), 50u);
  EXPECT_NEAR(lo[10], SeedStore::trainLoss(10, 0.0), 1e-12);
  EXPECT_NEAR(hi[10], SeedStore::trainLoss(10, 0.9), 1e-12);
  EXPECT_NEAR(hi[45], SeedStore::trainLoss(45, 0.3), 1e-12) << "seed 2 ended at step 39";

  curves->setReplicaView(ReplicaView::EachRun);
  EXPECT_EQ(curves->curveCount(), 5);
  EXPECT_EQ(curves->curveName(0), "pha/seed=0");
  EXPECT_TRUE(curves->bandLow(0).empty());
}

TEST(CompareGroups, AggregationInterpolatesReplicasBetweenTheirOwnPoints) {
  ReplicaCurve a{{0, 10}, {0, 1000}, {0, 1}, {1.0, 2.0}};
  ReplicaCurve b{{0, 5, 10}, {0, 500, 1000}, {0, 0.5, 1}, {3.0, 3.0, 3.0}};
  const GroupCurve g = aggregateCurves({a, b}, BandKind::MinMax);
  ASSERT_EQ(g.step, (std::vector<double>{0, 5, 10}));
  EXPECT_DOUBLE_EQ(g.mean[1], (1.5 + 3.0) / 2) << "a at step 5: halfway between its points";
  EXPECT_DOUBLE_EQ(g.low[1], 1.5);
  EXPECT_DOUBLE_EQ(g.tokens[1], 500);
  EXPECT_EQ(g.n, (std::vector<int>{2, 2, 2}));
}

TEST(CompareGroups, MetricsTableShowsMeanStdAndCountPerGroup) {
  SeedStore f;
  CompareWidget w;
  w.setRuns(f.refs);
  MetricsTab* m = w.metricsTab();
  ASSERT_EQ(m->table()->columnCount(), 3);
  const std::vector<double> finals(f.finals, f.finals + 3);
  const double mean = (finals[0] + finals[1] + finals[2]) / 3;
  EXPECT_NEAR(m->cellValue("val/loss final", 0).toDouble(), mean, 1e-12);
  EXPECT_EQ(m->cellText("val/loss final", 0),
            QStringLiteral("%1 ± %2 (3)").arg(QString::number(mean, 'g', 6), QString::number(sampleStd(finals), 'g', 4)));
  EXPECT_EQ(m->cellText("train/loss final", 0).right(3), "(3)");
  EXPECT_EQ(m->cellText("seed", 0), "0, 1, 2");
  EXPECT_EQ(m->cellText("status", 0), "3 replicas, finished");
  EXPECT_DOUBLE_EQ(m->cellValue("val/loss final", 2).toDouble(), 3.0) << "a single run as before";
  EXPECT_TRUE(m->cellText("val/loss final", 2).contains("step 49"));
  EXPECT_TRUE(m->isBest("val/loss final", 0)) << "the group's mean 2.27 beats 3.0 and the failed run's 9.0";
  EXPECT_TRUE(m->cellText("status", 1).startsWith("failed"));
}
