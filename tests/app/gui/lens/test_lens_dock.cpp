// The Lens dock (app/gui/lens/lens_view.h), offscreen, on tiny runs trained into temporary
// projects: Run fills every tab from a worker thread (weights, knock-outs, tokens, spectrum,
// attention); a model without attention says so in the Attention tab; bad sources end in a
// message in the dock, never a crash; Record stores the rows the mixer's raw / effective toggle
// (Mixer heatmap dock and Compare's Mixer tab) shows.
#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>

#include "gui/compare/compare_data.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/lens/lens_attention_tab.h"
#include "gui/lens/lens_knockout_tab.h"
#include "widgets/lens_rows.h"
#include "gui/lens/lens_spectrum_tab.h"
#include "gui/lens/lens_tokens_tab.h"
#include "gui/lens/lens_view.h"
#include "gui/lens/lens_weights_tab.h"
#include "widgets/matrix_heatmap.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/mixer_panel.h"
#include "gui/compare/mixer_tab.h"
#include "runtime/job.h"
#include "store/lens_store.h"
#include "store/store.h"
#include "widgets/token_text_view.h"

using namespace pha::gui;

namespace {

// A tiny project trained once per model kind for the whole suite (a few seconds each).
struct TrainedRun {
  std::unique_ptr<pha::test::TempProject> project;
  qint64 id = 0;
  QString store;
};

TrainedRun train(const nlohmann::json& model) {
  TrainedRun t;
  t.project = std::make_unique<pha::test::TempProject>();
  nlohmann::json p = t.project->text_project({{"steps", 4}, {"eval_every", 4}, {"final_eval_tokens", 256}});
  if (!model.is_null()) p["model"] = model;
  t.project->write_project(p);
  pha::runtime::RunObserver observer;
  pha::runtime::RunControl control;
  const auto r = pha::runtime::run_job(pha::test::job_spec(*t.project), observer, control);
  t.id = r.run_id;
  t.store = QString::fromStdString(t.project->store());
  return t;
}

const TrainedRun& phaRun() {
  static TrainedRun run = train(nullptr);
  return run;
}

const TrainedRun& gssOnlyRun() {
  static TrainedRun run = train({{"variant", "gss-only"},
                                 {"d_model", 32},
                                 {"n_layers", 2},
                                 {"context", 64},
                                 {"gss", {{"expanded", 64}, {"reduced", 16}, {"state", 16}}},
                                 {"ffn", {{"d_ff", 64}}}});
  return run;
}

bool runLens(LensView& v, int timeoutMs = 60000) {
  QSignalSpy finished(&v, &LensView::finished);
  v.run();
  if (finished.isEmpty() && !finished.wait(timeoutMs)) return false;
  return finished.first().first().toBool();
}

bool waitIdle(LensView& v, int timeoutMs = 60000) {
  return QTest::qWaitFor([&] { return !v.isBusy(); }, timeoutMs);
}

}  // namespace

TEST(LensDock, RunShowsWeightsKnockoutsTokensSpectrumAndAttentionOfATrainedRun) {
  const TrainedRun& t = phaRun();
  ASSERT_GT(t.id, 0);
  LensView v;
  v.resize(900, 700);
  v.show();
  v.setRun(t.store, t.id, "test");
  v.setSourceValidation(256);
  ASSERT_TRUE(runLens(v)) << v.status().toStdString();
  EXPECT_TRUE(v.status().startsWith("Measured in")) << v.status().toStdString();

  // Weights: 2 layers x 3 branches, raw and effective share differ; the table lists every cell.
  auto* heat = v.weightsTab()->heatmap();
  ASSERT_EQ(heat->layers(), 2) << heat->message().toStdString();
  const double raw = heat->cellValue(0, 0);
  v.weightsTab()->setShowEffective(true);
  const double share = heat->cellValue(0, 0);
  EXPECT_TRUE(std::isfinite(raw) && std::isfinite(share));
  EXPECT_NE(raw, share);
  EXPECT_NEAR(share, v.results()->weights->share.at(0, 0), 1e-6);
  EXPECT_EQ(v.weightsTab()->table()->rowCount(), 6);

  // Knock-outs: 2 layers + "all layers" x 3 branches, the rule stated, a class selector.
  auto* ko = v.knockoutTab()->heatmap();
  ASSERT_EQ(ko->rows(), 3) << ko->message().toStdString();
  EXPECT_EQ(ko->cols(), 3);
  EXPECT_TRUE(std::isfinite(ko->cellValue(2, 1)));
  EXPECT_TRUE(v.knockoutTab()->ruleText().contains(pha::runtime::KnockoutResult::kRule));
  EXPECT_GE(v.knockoutTab()->classBox()->count(), 2) << "all tokens and at least one class";
  EXPECT_TRUE(ko->cellToolTip(0, 0).contains("nats/token")) << ko->cellToolTip(0, 0).toStdString();

  // Tokens: the coloured text, one span per counted target at least, and the bins.
  auto* text = v.tokensTab()->view();
  EXPECT_GE(text->tokenCount(), 200) << text->message().toStdString();
  int coloured = 0;
  for (int i = 0; i < text->tokenCount(); ++i) coloured += std::isfinite(text->token(i).value) ? 1 : 0;
  EXPECT_GE(coloured, 200);
  EXPECT_GT(v.tokensTab()->bins()->rowCount(), 0);

  // Spectrum: a GSS layer's channels x log-lag bins, and the checkpoint choice (init + steps).
  auto* spec = v.spectrumTab()->heatmap();
  EXPECT_GT(spec->rows(), 0) << spec->message().toStdString();
  EXPECT_GT(spec->cols(), 4);
  EXPECT_GE(v.spectrumTab()->checkpointBox()->count(), 2);

  // Attention: the pha model has heads; at most 64 positions are shown at a time.
  auto* att = v.attentionTab()->heatmap();
  EXPECT_GT(att->rows(), 0) << v.attentionTab()->message().toStdString();
  EXPECT_LE(att->rows(), LensAttentionTab::kShown);
  EXPECT_EQ(att->rows(), att->cols());

  // Record: the weights and knock-outs land in the store.
  QSignalSpy recorded(&v, &LensView::recorded);
  v.record();
  ASSERT_TRUE(recorded.wait(20000)) << v.status().toStdString();
  auto s = pha::store::Store::open(t.store.toStdString());
  int shares = 0, knockouts = 0;
  for (const auto& r : pha::store::read_lens(s, t.id)) {
    shares += r.kind == "effective_share" ? 1 : 0;
    knockouts += r.kind == "knockout" ? 1 : 0;
  }
  EXPECT_EQ(shares, 6);
  EXPECT_GE(knockouts, 9);
}

TEST(LensDock, AttentionTabSaysAGssOnlyModelHasNoAttention) {
  const TrainedRun& t = gssOnlyRun();
  ASSERT_GT(t.id, 0);
  LensView v;
  v.setRun(t.store, t.id, "gss-only");
  v.setSourceValidation(128);
  ASSERT_TRUE(runLens(v)) << v.status().toStdString();
  const QString m = v.attentionTab()->message();
  EXPECT_TRUE(m.contains("no attention")) << m.toStdString();
  EXPECT_EQ(v.attentionTab()->heatmap()->rows(), 0);
  EXPECT_GT(v.spectrumTab()->heatmap()->rows(), 0) << "the other tabs are still filled";
  EXPECT_GT(v.tokensTab()->view()->tokenCount(), 0);
}

TEST(LensDock, BadSourcesShowTheErrorInTheDockInsteadOfCrashing) {
  const TrainedRun& t = phaRun();
  LensView v;
  v.setRun(t.store, t.id, "test");
  v.setSourceText("   ");
  EXPECT_FALSE(runLens(v));
  EXPECT_TRUE(v.status().contains("empty")) << v.status().toStdString();

  // A run the store does not hold: the engine's core::Error, shown in the dock.
  LensView missing;
  missing.setRun(t.store, 9999, "missing");
  EXPECT_FALSE(runLens(missing));
  EXPECT_TRUE(missing.status().startsWith("Cannot run the lens")) << missing.status().toStdString();
  EXPECT_FALSE(missing.isBusy());

  // A pasted text works on a text run, and a run after a failure still runs.
  v.setSourceText("the model mixes three branches and learns which one to trust at each depth. the model mixes");
  EXPECT_TRUE(runLens(v)) << v.status().toStdString();
  EXPECT_GT(v.tokensTab()->view()->tokenCount(), 10);
  EXPECT_TRUE(waitIdle(v));
}

TEST(LensDock, RawEffectiveToggleShowsStoredSharesOrSaysTheyAreNotMeasured) {
  const TrainedRun& t = phaRun();
  std::vector<pha::widgets::MixerFrame> frames;
  {
    auto s = pha::store::Store::open(t.store.toStdString());
    for (const auto& m : s.read_mixer_all(t.id)) frames.push_back({m.step, m.layers, m.branches, m.weights});
    // Shares that no raw weight equals: the toggle must show these.
    std::vector<pha::store::LensRow> rows;
    const char* names[3] = {"gss", "attn", "ffn"};
    for (int l = 0; l < 2; ++l)
      for (int b = 0; b < 3; ++b)
        rows.push_back({"effective_share", l, names[b], "", 4, 0.1 + 0.2 * b + 0.05 * l, 256, "valid:256", 0});
    pha::store::record_lens(s, t.id, rows);
  }
  ASSERT_FALSE(frames.empty());
  pha::widgets::MixerPanel panel;
  panel.setFrames(frames);
  const double raw = panel.heatmap()->cellValue(1, 2);
  panel.setEffectiveShares(pha::widgets::readEffectiveShares(t.store, t.id));
  panel.setShowEffective(true);
  EXPECT_NEAR(panel.heatmap()->cellValue(1, 2), 0.55, 1e-6);
  EXPECT_NE(panel.heatmap()->cellValue(1, 2), raw);
  panel.setShowEffective(false);
  EXPECT_EQ(panel.heatmap()->cellValue(1, 2), raw);
  panel.setEffectiveShares(std::nullopt);
  panel.setShowEffective(true);
  EXPECT_EQ(panel.heatmap()->message(), pha::widgets::effectiveNotMeasuredMessage());

  // Compare's Mixer tab: the same toggle over the compared runs.
  StoreCache cache;
  MixerTab tab;
  tab.setRuns(loadRuns(cache, {RunRef{t.store, t.id}}));
  ASSERT_EQ(tab.heatmapCount(), 1);
  const double tabRaw = tab.heatmap(0)->cellValue(0, 1);
  tab.setShowEffective(true);
  EXPECT_NEAR(tab.heatmap(0)->cellValue(0, 1), 0.3, 1e-6);
  EXPECT_NE(tab.heatmap(0)->cellValue(0, 1), tabRaw);
  EXPECT_TRUE(tab.heatmapTitle(0).contains("effective"));
}
