// QueueController: what the window does with the run queue. It queues a project's runs (and
// the efficiency profile its "profile" section asks for after them), pauses, resumes and
// cancels, feeds the queue's event batches to the live plots and the Efficiency dock, and keeps
// the status line and progress bar saying what the queue is doing. The training itself runs in
// RunQueue's worker thread.
#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;

namespace pha::gui {

class EfficiencyController;
class ProjectSession;
class RunMonitor;
class RunQueue;

class QueueController : public QObject {
  Q_OBJECT
 public:
  QueueController(RunQueue* queue, RunMonitor* monitor, EfficiencyController* efficiency, QLabel* statusLabel,
                  QProgressBar* progress, QObject* parent = nullptr);

  // Each returns false with errorOccurred() when it cannot start (no project, queue busy, ...).
  bool runProject(const ProjectSession& session);
  bool measureEfficiency(const ProjectSession& session);
  // Evaluates a stored run again from its last checkpoint (runtime::evaluate_run, as `pha eval`).
  bool evaluateRun(const QString& storePath, qint64 runId);
  void pauseOrResume();
  void cancelAll();

  bool isBusy() const;
  bool isPaused() const;

 signals:
  void stateChanged();                                 // busy / paused changed: update actions
  void storeChanged(bool now);                         // runs were written; now: reload at once
  void profileStarted();                               // show the Efficiency dock
  void message(const QString& text, int timeoutMs);    // a transient status-bar message
  void errorOccurred(const QString& message);

 private:
  void connectTraining();
  void connectProfile();
  void connectEvaluation();
  void startQueue();

  RunQueue* m_queue;
  RunMonitor* m_monitor;
  EfficiencyController* m_efficiency;
  QLabel* m_status;
  QProgressBar* m_progress;
  QString m_storePath;
};

}  // namespace pha::gui
