#include "run_monitor.h"

#include <QLabel>
#include <cmath>

#include "curve_plot.h"
#include "mixer_panel.h"
#include "store/store.h"

namespace pha::gui {

namespace {
const QColor kTrain(31, 119, 180);
const QColor kVal(255, 127, 14);

QString readoutText(const runtime::StepMetrics& s) {
  QString eta = s.eta_s >= 0 ? QString(" | ETA %1 s").arg(std::lround(s.eta_s)) : QString();
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
    : QObject(parent), m_loss(lossPlot), m_quality(qualityPlot), m_mixer(mixer), m_readout(readout) {}

void RunMonitor::clearPlots(const QString& title) {
  m_loss->clearSeries();
  m_quality->clearSeries();
  m_quality->setYLabel(tr("perplexity"));
  m_mixer->clear(tr("No mixer snapshot yet for %1.").arg(title));
  m_readout->clear();
  m_lastStep = 0;
  m_isTask = false;
}

void RunMonitor::beginLive(const QString& runName) {
  m_live = true;
  m_runId = 0;
  clearPlots(runName);
  m_readout->setText(tr("%1: starting...").arg(runName));
}

void RunMonitor::endLive() { m_live = false; }

void RunMonitor::addEvents(const EventBuffer::Batch& batch) {
  if (!m_live) return;
  for (const auto& s : batch.steps) {
    m_runId = s.run_id;
    m_lastStep = s.step;
    m_loss->appendPoint("train/loss", s.step, s.tokens, s.wall_s, s.loss, kTrain);
    if (!m_isTask) m_quality->appendPoint("train/ppl", s.step, s.tokens, s.wall_s, s.perplexity, kTrain);
  }
  if (!batch.steps.empty()) m_readout->setText(readoutText(batch.steps.back()));
  for (const auto& e : batch.evals) {
    // Text runs: the periodic (seq_len 0) and the final (seq_len = training T) validation
    // losses, named as the store names them ("val/..."), so the live and the stored view of a
    // run show the same series. Other evaluations with a length are sweeps: the compare view's.
    const bool textValid = e.split == "valid";
    if (e.seq_len != 0 && !textValid) continue;
    const QString split = textValid ? QStringLiteral("val") : QString::fromStdString(e.split);
    const QString metric = QString::fromStdString(e.metric);
    if (metric == "loss") m_loss->appendPoint(split + "/loss", e.step, 0, 0, e.value, kVal);
    if (metric == "perplexity") m_quality->appendPoint(split + "/ppl", e.step, 0, 0, e.value, kVal);
    if (metric == "accuracy") {
      if (!m_isTask) {
        m_isTask = true;
        m_quality->clearSeries();
        m_quality->setYLabel(tr("accuracy"));
      }
      m_quality->appendPoint(split + "/accuracy", e.step, 0, 0, e.value, kVal);
    }
  }
  for (const auto& m : batch.mixers) m_mixer->appendFrame(widgets::MixerFrame{m.step, m.layers, m.branches, m.weights});
  m_loss->replotLater();
  m_quality->replotLater();
}

bool RunMonitor::showStoredRun(const QString& storePath, qint64 runId) {
  try {
    auto s = store::Store::open(storePath.toStdString());
    auto run = s.get_run(runId);
    if (!run) {
      m_error = tr("run %1 is not in %2").arg(runId).arg(storePath);
      return false;
    }
    m_live = false;
    m_runId = runId;
    clearPlots(QString::fromStdString(run->name));
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
    m_readout->setText(tr("%1 (%2)%3")
                           .arg(QString::fromStdString(run->name), store::to_string(run->status),
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
