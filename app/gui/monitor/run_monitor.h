// RunMonitor: fills the live-curve plots and the mixer panel, either from the events of the
// run that is training (RunQueue batches) or from a stored run picked in the run browser
// (read from the store, downsampled to about the plot width). Evaluation series (val/...,
// a few points) are drawn raw as points (widgets::SeriesKind::Sparse), training series smoothed.
// It also owns the three plots' Export… menus: the title names the run, the metric and the
// step; the curves' CSV has every point (a stored run's re-read from the store at full
// resolution) with raw and smoothed columns; the mixer's CSV every snapshot.
#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <vector>
#include <QColor>
#include <QStringList>

#include "widgets/export_menu.h"
#include "gui/monitor/event_buffer.h"

class QLabel;

namespace pha::widgets {
class CurvePlot;
class MixerPanel;
}  // namespace pha::widgets

namespace pha::gui {

class RunMonitor : public QObject {
  Q_OBJECT
 public:
  RunMonitor(widgets::CurvePlot* lossPlot, widgets::CurvePlot* qualityPlot, widgets::MixerPanel* mixer, QLabel* readout, QObject* parent = nullptr);

  // Live: a new run begins (clears the plots) / events of the running run.
  void beginLive(const QString& runName);
  void addEvents(const EventBuffer::Batch& batch);
  bool isLive() const { return m_live; }
  // The live run ended with `status` (a runtime::job_status_name; "" when unknown): the
  // readout says so in place of the step line (whose ETA no longer applies).
  void endLive(const QString& status = {}, const QString& reason = {});
  // What the end readout adds after the run's own line (e.g. what a cancel dropped from the queue).
  void setEndNote(const QString& note) { m_afterEnd = note; }

  // Side by side (RunQueue::setJobs): the plots show each live run's curves, named
  // "<run> · train/loss"; a run's curves leave the live plots when it ends (the run browser shows
  // it stored); the mixer heatmap follows the earliest-started live run. Events arrive tagged
  // with their run (EventBuffer::Batch::run); endLive() ends the whole batch.
  void beginSideBySide(int jobs, int runs);
  void beginLiveRun(const QString& runName);
  void endLiveRun(const QString& runName, const QString& status, const QString& reason);
  bool isSideBySide() const { return m_live && m_sideBySide; }
  QStringList liveRuns() const { return m_liveRuns; }
  QString mixerRun() const { return m_mixerRun; }

  // Stored: shows a saved run (returns false with errorText() when the store cannot be read).
  bool showStoredRun(const QString& storePath, qint64 runId);
  // Nothing shown (another project opened): empty plots and heatmap saying so.
  void clear(const QString& why);
  // The run shown is an efficiency profile (no curves: the plots say where its figures are).
  bool shownRunIsProfile() const { return m_profile; }
  // ... and of those, an inference benchmark (`pha bench inference`: the Inference tab's).
  bool shownRunIsInference() const { return m_inference; }
  QString errorText() const { return m_error; }
  qint64 shownRunId() const { return m_runId; }

  // What the Export… menus export (public for tests): one of the two curve plots, and the
  // mixer panel; titles like "pha-tiny: loss (nats/token), step 150".
  widgets::ExportSource curvesExport(widgets::CurvePlot* plot) const;
  widgets::ExportSource mixerExport() const;
  bool writeCurvesCsv(widgets::CurvePlot* plot, const QString& path, QString* error) const;
  QString exportTitle(const QString& what) const;

 private:
  void clearPlots(const QString& title);
  void restoreEmptyMessages();
  void installExports();
  struct StepX {
    std::int64_t step;
    double tokens, wall;
  };
  void addEvalPoint(widgets::CurvePlot* plot, const QString& name, std::int64_t step, double value,
                    const std::vector<StepX>& steps, const QColor& color);
  void addEvals(const EventBuffer::Batch& batch, const QString& prefix, const std::vector<StepX>& steps,
                const QColor& color);
  void addSideBySideEvents(const EventBuffer::Batch& batch);
  void showSideBySideReadout();
  widgets::CurvePlot* m_loss;
  widgets::CurvePlot* m_quality;
  widgets::MixerPanel* m_mixer;
  QLabel* m_readout;
  bool m_live = false;
  bool m_isTask = false;
  bool m_profile = false;
  bool m_inference = false;
  qint64 m_endedRunId = 0;  // the run endLive() last reported, with its status and name
  QString m_endedStatus, m_endedName, m_endedText;
  QString m_afterEnd;
  qint64 m_runId = 0;
  qint64 m_lastStep = 0;
  qint64 m_totalSteps = 0;
  QString m_runName;
  QString m_storePath;  // the stored run's store ("" while live)
  // x of the live run's steps (step, tokens, seconds), so evaluation points, which arrive
  // without them, sit at their step's tokens and time.
  std::vector<StepX> m_steps;
  // Side by side: the live runs (in start order), each one's steps and readout line, the run
  // the heatmap follows, the runs at once.
  bool m_sideBySide = false;
  int m_sideJobs = 1, m_sideRuns = 0, m_sideEnded = 0;
  QStringList m_liveRuns;
  QString m_mixerRun;
  std::map<QString, std::vector<StepX>> m_runSteps;
  std::map<QString, QString> m_runReadouts;
  std::map<QString, QColor> m_runColors;  // each live run's colour (widgets::seriesColor, in start order)
  int m_sideColors = 0;
  QString m_error;
};

}  // namespace pha::gui
