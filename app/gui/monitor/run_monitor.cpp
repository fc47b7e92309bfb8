#include "gui/monitor/run_monitor.h"

#include <QLabel>
#include <algorithm>
#include <cmath>

#include "widgets/curve_plot.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/mixer_panel.h"
#include "widgets/window_store.h"
#include "store/inference_store.h"
#include "store/store.h"

namespace pha::gui {

namespace {
const QColor kTrain(31, 119, 180);
const QColor kVal(255, 127, 14);

QString readoutText(const runtime::StepMetrics& s) {
  QString eta = s.eta_s >= 0 ? QObject::tr(" | run ETA %1 s").arg(std::lround(s.eta_s)) : QString();
  return QObject::tr("step %1/%2 | loss %3 | lr %4 | grad norm %5 | %6 tokens/s | %7 MB%8")
      .arg(s.step)
      .arg(s.total_steps)
      .arg(s.loss, 0, 'f', 4)
      .arg(s.learning_rate, 0, 'g', 3)
      .arg(s.grad_norm, 0, 'f', 3)
      .arg(std::lround(s.tokens_per_s))
      .arg(s.memory_bytes / 1e6, 0, 'f', 0)
      .arg(eta);
}
}  // namespace

RunMonitor::RunMonitor(widgets::CurvePlot* lossPlot, widgets::CurvePlot* qualityPlot, widgets::MixerPanel* mixer, QLabel* readout, QObject* parent)
    : QObject(parent), m_loss(lossPlot), m_quality(qualityPlot), m_mixer(mixer), m_readout(readout) {
  installExports();
}

void RunMonitor::installExports() {
  widgets::installExportMenu(m_loss->plot(), curvesExport(m_loss));
  widgets::installExportMenu(m_quality->plot(), curvesExport(m_quality));
  widgets::installExportMenu(m_mixer->heatmap()->plot(), mixerExport());
}

widgets::ExportSource RunMonitor::curvesExport(widgets::CurvePlot* plot) const {
  return widgets::ExportSource{plot == m_loss ? QStringLiteral("loss") : QStringLiteral("quality"),
                      [this, plot](const QString& path, QString* error) { return writeCurvesCsv(plot, path, error); },
                      [this, plot] { return exportTitle(plot->yLabel()); },
                      {}};
}

widgets::ExportSource RunMonitor::mixerExport() const {
  return widgets::ExportSource{"mixer", [this](const QString& path, QString* error) { return m_mixer->writeCsv(path, error); },
                      [this] {
                        if (m_runName.isEmpty() || m_mixer->currentStep() < 0) return QString();
                        return tr("%1: mixer weights, step %2").arg(m_runName).arg(m_mixer->currentStep());
                      },
                      // An image shows one step, the CSV every snapshot: the file name names none.
                      [this] { return m_runName.isEmpty() ? QString() : tr("%1: mixer weights").arg(m_runName); }};
}

QString RunMonitor::exportTitle(const QString& what) const {
  if (m_runName.isEmpty()) return what;
  return m_lastStep > 0 ? tr("%1: %2, step %3").arg(m_runName, what).arg(m_lastStep) : tr("%1: %2").arg(m_runName, what);
}

bool RunMonitor::writeCurvesCsv(widgets::CurvePlot* plot, const QString& path, QString* error) const {
  if (plot->seriesCount() == 0) {
    if (error) *error = tr("There are no curves to export.");
    return false;
  }
  if (m_live || m_storePath.isEmpty()) return plot->writeCsv(path, error);
  // A stored run's plot holds the store's downsampled read; the CSV has every stored point.
  try {
    auto s = store::Store::open(m_storePath.toStdString(), widgets::windowReadOptions());
    std::vector<widgets::CurveData> series;
    for (const QString& name : plot->seriesNames()) {
      widgets::CurveData d{name, plot->seriesKind(name), {}, {}, {}, {}};
      for (const auto& p : s.read_metric_full(m_runId, name.toStdString())) {
        d.step.push_back(static_cast<double>(p.step));
        d.tokens.push_back(static_cast<double>(p.tokens));
        d.wall.push_back(p.wall_ms / 1000.0);
        d.value.push_back(p.value);
      }
      series.push_back(std::move(d));
    }
    return widgets::writeCurvesCsv(path, series, plot->smoothing(), error);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

void RunMonitor::clearPlots(const QString& title) {
  m_loss->clearSeries();
  m_quality->clearSeries();
  m_quality->setYLabel(tr("perplexity"));
  m_mixer->clear(tr("No mixer snapshot yet for %1.").arg(title));
  m_readout->clear();
  m_lastStep = 0;
  m_totalSteps = 0;
  m_isTask = false;
  m_steps.clear();
}

void RunMonitor::restoreEmptyMessages() {
  m_loss->setEmptyMessage(tr("Loss curves appear here while a run trains, or when you pick a run."));
  m_quality->setEmptyMessage(QString());
}

void RunMonitor::clear(const QString& why) {
  if (m_live) return;  // the training run keeps its plots
  m_profile = false;
  m_inference = false;
  restoreEmptyMessages();
  clearPlots(QString());
  m_mixer->clear(why);
  m_readout->setText(why);
  m_runId = 0;
  m_runName.clear();
  m_storePath.clear();
}

void RunMonitor::beginLive(const QString& runName) {
  m_live = true;
  m_sideBySide = false;
  m_profile = false;
  m_inference = false;
  restoreEmptyMessages();
  m_runId = 0;
  m_runName = runName;
  m_storePath.clear();
  clearPlots(runName);
  m_readout->setText(tr("%1: starting...").arg(runName));
}

void RunMonitor::endLive(const QString& status, const QString& reason) {
  if (!m_live) return;
  m_live = false;
  if (m_sideBySide) {  // the batch ended: its runs' ends were said one by one
    m_sideBySide = false;
    m_liveRuns.clear();
    m_runSteps.clear();
    m_runReadouts.clear();
    m_mixerRun.clear();
    m_readout->setText(tr("%1 runs trained side by side (%2 at once); pick one in the run browser to see its curves")
                           .arg(m_sideEnded)
                           .arg(m_sideJobs));
    return;
  }
  if (status.isEmpty()) return;
  QString text = tr("%1 %2 at step %3 of %4").arg(m_runName, status).arg(m_lastStep).arg(m_totalSteps);
  if (status == "cancelled") text += tr(" (a checkpoint was written)");
  // The engine's reason often repeats what the line already says ("cancelled at step 141").
  if (!reason.isEmpty() && !reason.startsWith(status + " at step", Qt::CaseInsensitive)) text += ": " + reason;
  if (!m_afterEnd.isEmpty()) text += "; " + m_afterEnd;
  m_afterEnd.clear();
  m_readout->setText(text);
  m_endedRunId = m_runId;
  m_endedStatus = status;
  m_endedName = m_runName;
  m_endedText = text;
}

void RunMonitor::addEvalPoint(widgets::CurvePlot* plot, const QString& name, std::int64_t step, double value,
                              const std::vector<StepX>& steps, const QColor& color) {
  plot->setSeriesKind(name, widgets::SeriesKind::Sparse);
  // The step's tokens and time: the last step event at or before it.
  auto it = std::upper_bound(steps.begin(), steps.end(), step,
                             [](std::int64_t s, const StepX& x) { return s < x.step; });
  const StepX x = it == steps.begin() ? StepX{step, 0, 0} : *(it - 1);
  plot->appendPoint(name, static_cast<double>(step), x.tokens, x.wall, value, color);
}

void RunMonitor::addEvals(const EventBuffer::Batch& batch, const QString& prefix, const std::vector<StepX>& steps,
                          const QColor& color) {
  for (const auto& e : batch.evals) {
    // Text runs: the periodic (seq_len 0) and the final (seq_len = training T) validation
    // losses, named as the store names them ("val/..."), so the live and the stored view of a
    // run show the same series. Other evaluations with a length are sweeps: the compare view's.
    const bool textValid = e.split == "valid";
    if (e.seq_len != 0 && !textValid) continue;
    const QString split = prefix + (textValid ? QStringLiteral("val") : QString::fromStdString(e.split));
    const QString metric = QString::fromStdString(e.metric);
    if (metric == "loss") addEvalPoint(m_loss, split + "/loss", e.step, e.value, steps, color);
    if (metric == "perplexity") addEvalPoint(m_quality, split + "/ppl", e.step, e.value, steps, color);
    if (metric == "accuracy") {
      if (!m_isTask) {
        m_isTask = true;
        m_quality->clearSeries();
        m_quality->setYLabel(tr("accuracy"));
      }
      addEvalPoint(m_quality, split + "/accuracy", e.step, e.value, steps, color);
    }
  }
}

void RunMonitor::beginSideBySide(int jobs, int runs) {
  m_live = true;
  m_sideBySide = true;
  m_profile = false;
  m_inference = false;
  m_sideJobs = jobs;
  m_sideRuns = runs;
  m_sideEnded = 0;
  m_sideColors = 0;
  m_runColors.clear();
  m_liveRuns.clear();
  m_runSteps.clear();
  m_runReadouts.clear();
  m_mixerRun.clear();
  restoreEmptyMessages();
  m_runId = 0;
  m_runName = tr("%1 runs side by side").arg(runs);
  m_storePath.clear();
  clearPlots(m_runName);
  m_readout->setText(tr("%1 runs, %2 at once: starting...").arg(runs).arg(jobs));
}

void RunMonitor::beginLiveRun(const QString& runName) {
  if (!isSideBySide()) return beginLive(runName);
  m_liveRuns << runName;
  m_runSteps[runName].clear();
  m_runColors[runName] = widgets::seriesColor(m_sideColors++);  // its curves' colour while it trains
  if (m_mixerRun.isEmpty()) {
    m_mixerRun = runName;
    m_mixer->clear(tr("No mixer snapshot yet for %1.").arg(runName));
  }
  m_runReadouts[runName] = tr("%1: starting").arg(runName);
  showSideBySideReadout();
}

void RunMonitor::endLiveRun(const QString& runName, const QString& status, const QString& reason) {
  if (!isSideBySide()) return endLive(status, reason);
  ++m_sideEnded;
  const QString prefix = runName + QStringLiteral(" · ");
  for (widgets::CurvePlot* plot : {m_loss, m_quality}) {
    for (const QString& name : plot->seriesNames())
      if (name.startsWith(prefix)) plot->removeSeries(name);
    plot->replotLater();
  }
  m_liveRuns.removeAll(runName);
  m_runSteps.erase(runName);
  m_runReadouts.erase(runName);
  m_runColors.erase(runName);
  if (m_mixerRun == runName) {  // the heatmap follows the next live run
    m_mixerRun = m_liveRuns.value(0);
    m_mixer->clear(m_mixerRun.isEmpty() ? tr("%1 %2; no run is training now.").arg(runName, status)
                                        : tr("No mixer snapshot yet for %1.").arg(m_mixerRun));
  }
  m_endedName = runName;
  m_endedStatus = status;
  m_endedText = tr("%1 %2").arg(runName, status) + (reason.isEmpty() ? QString() : ": " + reason);
  showSideBySideReadout();
}

void RunMonitor::showSideBySideReadout() {
  QStringList lines;
  for (const QString& run : m_liveRuns)
    if (auto it = m_runReadouts.find(run); it != m_runReadouts.end()) lines << it->second;
  const QString head = tr("%1 of %2 runs ended, %3 at once").arg(m_sideEnded).arg(m_sideRuns).arg(m_sideJobs);
  const QString mixer = m_mixerRun.isEmpty() ? QString() : " | " + tr("heatmap: %1").arg(m_mixerRun);
  m_readout->setText(head + (lines.isEmpty() ? QString() : " | " + lines.join(" | ")) + mixer);
}

void RunMonitor::addSideBySideEvents(const EventBuffer::Batch& batch) {
  const QString run = QString::fromStdString(batch.run);
  if (run.isEmpty() || !m_liveRuns.contains(run)) return;
  std::vector<StepX>& steps = m_runSteps[run];
  const QString prefix = run + QStringLiteral(" · ");
  const QColor color = m_runColors.count(run) ? m_runColors[run] : kTrain;
  for (const auto& s : batch.steps) {
    steps.push_back({s.step, static_cast<double>(s.tokens), s.wall_s});
    m_loss->appendPoint(prefix + "train/loss", s.step, s.tokens, s.wall_s, s.loss, color);
    if (!m_isTask) m_quality->appendPoint(prefix + "train/ppl", s.step, s.tokens, s.wall_s, s.perplexity, color);
  }
  if (!batch.steps.empty()) {
    const auto& s = batch.steps.back();
    m_lastStep = s.step;
    m_totalSteps = s.total_steps;
    m_runReadouts[run] = tr("%1: step %2/%3, loss %4, %5 tokens/s")
                             .arg(run)
                             .arg(s.step)
                             .arg(s.total_steps)
                             .arg(s.loss, 0, 'f', 4)
                             .arg(std::lround(s.tokens_per_s));
    showSideBySideReadout();
  }
  addEvals(batch, prefix, steps, color);  // the run's colour, drawn as points
  if (run == m_mixerRun)
    for (const auto& m : batch.mixers) m_mixer->appendFrame(widgets::MixerFrame{m.step, m.layers, m.branches, m.weights});
  m_loss->replotLater();
  m_quality->replotLater();
}

void RunMonitor::addEvents(const EventBuffer::Batch& batch) {
  if (!m_live) return;
  if (m_sideBySide) return addSideBySideEvents(batch);
  for (const auto& s : batch.steps) {
    m_runId = s.run_id;
    m_lastStep = s.step;
    m_totalSteps = s.total_steps;
    m_steps.push_back({s.step, static_cast<double>(s.tokens), s.wall_s});
    m_loss->appendPoint("train/loss", s.step, s.tokens, s.wall_s, s.loss, kTrain);
    if (!m_isTask) m_quality->appendPoint("train/ppl", s.step, s.tokens, s.wall_s, s.perplexity, kTrain);
  }
  if (!batch.steps.empty()) m_readout->setText(readoutText(batch.steps.back()));
  addEvals(batch, QString(), m_steps, kVal);
  for (const auto& m : batch.mixers) m_mixer->appendFrame(widgets::MixerFrame{m.step, m.layers, m.branches, m.weights});
  m_loss->replotLater();
  m_quality->replotLater();
}

// Reads the run's series from the store in one transaction-like pass and
// hands each to its plot; splitting it would pass the open store around.
bool RunMonitor::showStoredRun(const QString& storePath, qint64 runId) {
  try {
    auto s = store::Store::open(storePath.toStdString(), widgets::windowReadOptions());
    auto run = s.get_run(runId);
    if (!run) {
      m_error = tr("run %1 is not in %2").arg(runId).arg(storePath);
      return false;
    }
    m_live = false;
    m_runId = runId;
    m_runName = QString::fromStdString(run->name);
    clearPlots(m_runName);
    m_storePath = storePath;
    m_profile = run->kind == store::RunKind::Profile;
    m_inference = m_profile && store::is_inference_run_config(run->config_json);
    if (m_profile) {  // no curves to draw: say what it is and where its figures are
      const QString what =
          m_inference ? tr("Run %1 (%2) is an inference benchmark: its prefill and decode timings and decode memory at "
                           "each prompt length are in the Efficiency dock's Inference tab; it has no loss curves or "
                           "mixer weights.")
                            .arg(runId)
                            .arg(m_runName)
                      : tr("Run %1 (%2) is an efficiency profile: its training tokens/s and peak memory at each "
                           "sequence length are in the Efficiency dock; it has no loss curves or mixer weights.")
                            .arg(runId)
                            .arg(m_runName);
      m_loss->setEmptyMessage(what);
      m_quality->setEmptyMessage(what);
      m_mixer->clear(what);
      m_readout->setText(what);
      m_error.clear();
      return true;
    }
    restoreEmptyMessages();
    const auto keys = s.metric_keys(runId);
    auto has = [&](const char* k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
    auto load = [&](widgets::CurvePlot* plot, const char* key, const QColor& color) {
      if (!has(key)) return;
      const auto tokens = s.read_metric(runId, key, 2000, store::XAxis::Tokens);
      const auto wall = s.read_metric(runId, key, 2000, store::XAxis::WallMs);
      std::vector<double> st, tk, wl, v;
      for (size_t i = 0; i < tokens.size(); ++i) {
        st.push_back(static_cast<double>(tokens[i].step_last));
        tk.push_back(tokens[i].x_last);
        wl.push_back(i < wall.size() ? wall[i].x_last / 1000.0 : 0.0);
        v.push_back(tokens[i].last);
      }
      // Evaluations (val/..., a few points) are drawn raw as points: their last drawn value is
      // the stored one, the figure the run table shows.
      plot->setSeriesKind(key, widgets::metricSeriesKind(key));
      plot->setSeries(key, st, tk, wl, v, color);
      m_lastStep = std::max<qint64>(m_lastStep, st.empty() ? 0 : static_cast<qint64>(st.back()));
    };
    load(m_loss, "train/loss", kTrain);
    load(m_loss, "val/loss", kVal);
    if (has("val/accuracy") && !has("val/ppl")) {
      m_isTask = true;
      m_quality->setYLabel(tr("accuracy"));
      load(m_quality, "val/accuracy", kVal);
    } else {
      load(m_quality, "train/ppl", kTrain);
      load(m_quality, "val/ppl", kVal);
    }
    std::vector<widgets::MixerFrame> frames;
    for (auto& snap : s.read_mixer_all(runId)) frames.push_back({snap.step, snap.layers, snap.branches, snap.weights});
    if (frames.empty())
      m_mixer->clear(tr("%1 has no mixer snapshots (its variant may have no mixer).").arg(run->name.c_str()));
    else
      m_mixer->setFrames(std::move(frames));
    // The run that just ended live keeps its end line ("pha-tiny cancelled at step 57 of 150 ...;
    // dropped from the queue: ..."): the store's watcher re-reads the run when its status reaches
    // the store, a moment after the queue said it, and the line must not depend on which comes last.
    const bool justEnded = runId == m_endedRunId && QString::fromStdString(run->name) == m_endedName &&
                           QString(store::to_string(run->status)) == m_endedStatus;
    if (justEnded)
      m_readout->setText(m_endedText);
    else
      m_readout->setText(tr("%1 (run %2, %3)%4")
                           .arg(QString::fromStdString(run->name))
                           .arg(runId)
                           .arg(store::to_string(run->status),
                                run->error.empty() ? QString() : ": " + QString::fromStdString(run->error)));
    m_loss->replotLater();
    m_quality->replotLater();
    m_error.clear();
    return true;
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
}

}  // namespace pha::gui
