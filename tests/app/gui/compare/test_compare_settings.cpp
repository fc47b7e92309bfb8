// Compare reads what it ranks the way a reviewer would: a learning-rate grid's points are
// settings, not seeds (Scaling draws each size at its best setting, its seeds as the error
// bar), and a speed or a memory is never marked best from one noisy value (speeds by their
// median over the steady state, memory not at all).
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "gui/compare/compare_widget.h"
#include "gui/compare/metrics_tab.h"
#include "gui/compare/scaling_tab.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;

namespace {

struct SettingsStore {
  QTemporaryDir dir;
  QString path() const { return dir.filePath("runs.sqlite"); }
  std::int64_t add(const std::string& name, const std::string& group, std::int64_t seed, std::int64_t params,
                   const std::function<void(pha::store::RunWriter&)>& write) {
    auto s = pha::store::Store::open(path().toStdString());
    pha::store::NewRun nr;
    nr.project = "p";
    nr.name = name;
    nr.variant = "pha";
    nr.n_params = params;
    nr.group = group;
    nr.seed = seed;
    nr.config_json = "{}";
    const auto id = s.create_run(nr);
    pha::store::RunWriter w(s, id);
    write(w);
    w.finish(pha::store::RunStatus::Finished);
    return id;
  }
};

}  // namespace

TEST(CompareSettings, ScalingDrawsEachSizeAtItsBestSettingNotTheMeanOverLearningRates) {
  SettingsStore st;
  QList<RunRef> refs;
  // Three sizes x two learning rates x two seeds; lr=0.003 is 0.3 better everywhere.
  for (std::int64_t n : {10000, 100000, 1000000})
    for (const char* lr : {"0.001", "0.003"})
      for (std::int64_t seed : {0, 1}) {
        const std::string group = "pha-" + std::to_string(n) + "/lr=" + lr;
        const double loss = 1.5 + 40 * std::pow(double(n), -0.3) - (std::string(lr) == "0.003" ? 0.3 : 0.0) +
                            (seed ? 0.002 : -0.002);
        refs << RunRef{st.path(), st.add(group, group, seed, n, [&](pha::store::RunWriter& w) {
                         w.metric("val/loss", 10, 1000, 100, loss);
                       })};
      }
  CompareWidget w;
  w.resize(1000, 700);
  w.setRuns(refs);
  ScalingTab* t = w.scalingTab();
  ASSERT_EQ(t->seriesCount(), 1);
  QCPGraph* dots = t->plot()->graph(0);
  ASSERT_EQ(dots->data()->size(), 3);
  for (auto it = dots->data()->constBegin(); it != dots->data()->constEnd(); ++it) {
    const double expected = 1.5 + 40 * std::pow(it->key, -0.3) - 0.3;  // the lr=0.003 mean
    EXPECT_NEAR(it->value, expected, 1e-9) << "size " << it->key << ": the best setting, not the mean over lrs";
  }
  const std::string summary = t->summary().toStdString();
  EXPECT_NE(summary.find("settings (a learning-rate grid), not replicas"), std::string::npos) << summary;
  EXPECT_NE(summary.find("lr=0.001"), std::string::npos) << "the settings not used are named: " << summary;
}

TEST(CompareSettings, SpeedIsRankedByItsSteadyMedianAndMemoryIsNeverMarkedBest) {
  SettingsStore st;
  // a: 10k tokens/s steady, a slow last step (5k); b: 8k steady, a fast last step (12k). Memory
  // grows with the order the runs trained in (the window's process).
  auto series = [](double steady, double last, double memory) {
    return [=](pha::store::RunWriter& w) {
      for (int s = 1; s <= 20; ++s) {
        const double v = s == 1 ? 1000.0 : s == 20 ? last : steady + (s % 2 ? 50 : -50);
        w.metric("train/tokens_per_s", s, s * 64, s * 10, v);
        w.metric("train/memory_bytes", s, s * 64, s * 10, memory + s);
        w.metric("train/loss", s, s * 64, s * 10, 5.0 - 0.1 * s);
      }
    };
  };
  const auto a = st.add("a", "a", 0, 1000, series(10000, 5000, 300e6));
  const auto b = st.add("b", "b", 0, 1000, series(8000, 12000, 360e6));
  CompareWidget w;
  w.resize(1000, 700);
  w.setRuns({RunRef{st.path(), a}, RunRef{st.path(), b}});
  MetricsTab* m = w.metricsTab();
  const QStringList rows = m->rowNames();
  EXPECT_TRUE(rows.contains("train/tokens_per_s median")) << rows.join(", ").toStdString();
  EXPECT_FALSE(rows.contains("train/tokens_per_s final")) << "the last step's speed is not what is compared";
  EXPECT_TRUE(m->isBest("train/tokens_per_s median", 0)) << "a is faster in the steady state";
  EXPECT_FALSE(m->isBest("train/tokens_per_s median", 1));
  EXPECT_NEAR(m->cellValue("train/tokens_per_s median", 0).toDouble(), 10000, 60);
  ASSERT_TRUE(rows.contains("train/memory_bytes final"));
  EXPECT_FALSE(m->isBest("train/memory_bytes final", 0)) << "memory is shown, not ranked";
  EXPECT_FALSE(m->isBest("train/memory_bytes final", 1));
  EXPECT_TRUE(m->isBest("train/loss final", 0) || m->isBest("train/loss final", 1) ||
              m->cellValue("train/loss final", 0) == m->cellValue("train/loss final", 1))
      << "losses are still ranked";
}
