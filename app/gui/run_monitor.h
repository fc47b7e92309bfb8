// RunMonitor: fills the live-curve plots and the mixer panel, either from the events of the
// run that is training (RunQueue batches) or from a stored run picked in the run browser
// (read from the store, downsampled to about the plot width).
#pragma once

#include <QObject>
#include <QString>

#include "run_queue.h"

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
  void endLive();

  // Stored: shows a saved run (returns false with errorText() when the store cannot be read).
  bool showStoredRun(const QString& storePath, qint64 runId);
  QString errorText() const { return m_error; }
  qint64 shownRunId() const { return m_runId; }
  qint64 lastStep() const { return m_lastStep; }

 private:
  void clearPlots(const QString& title);
  widgets::CurvePlot* m_loss;
  widgets::CurvePlot* m_quality;
  widgets::MixerPanel* m_mixer;
  QLabel* m_readout;
  bool m_live = false;
  bool m_isTask = false;
  qint64 m_runId = 0;
  qint64 m_lastStep = 0;
  QString m_error;
};

}  // namespace pha::gui
