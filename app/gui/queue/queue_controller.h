// QueueController: what the window does with the run queue. It queues a project's runs (and
// the efficiency profile its "profile" section asks for after them), asks first when the
// project already has finished runs of the same name and configuration, pauses, resumes and
// cancels, feeds the queue's event batches to the live plots and the Efficiency dock, and keeps
// the status line and progress bar saying what the queue is doing: which run of how many, what
// follows, and the whole queue's ETA (runtime::queue_eta_seconds); cleared when the queue is cancelled or
// finishes. The training itself runs in RunQueue's worker thread.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <optional>

#include "runtime/events.h"

class QLabel;
class QWidget;
class QProgressBar;

namespace pha::project {
struct Project;  // project/project.h
}

namespace pha::gui {

class EfficiencyController;
class ProjectSession;
class RunMonitor;
class RunQueue;

// The queue's ETA is the engine's (runtime::queue_eta_seconds, queue/work_queue.h).
// "42 s", "3m 05s", "1h 02m".
QString formatEta(double seconds);

class QueueController : public QObject {
  Q_OBJECT
 public:
  QueueController(RunQueue* queue, RunMonitor* monitor, EfficiencyController* efficiency, QLabel* statusLabel,
                  QProgressBar* progress, QObject* parent = nullptr);

  // Each returns false with errorOccurred() when it cannot start (no project, queue busy, ...).
  // runProject also returns false when the user declines to train again runs that exist.
  // `decided`: the answer the plan dialog already gave (then nothing is asked).
  enum class RepeatChoice { OnlyNew, All, Nothing };
  bool runProject(const ProjectSession& session, std::optional<RepeatChoice> decided = std::nullopt);
  // Run > Run project: the plan first (PlanDialog, unless turned off there), then runProject.
  bool planThenRun(const ProjectSession& session, QWidget* parent);
  // Run > Plan project...: the plan alone.
  void showPlan(const ProjectSession& session, QWidget* parent);
  bool measureEfficiency(const ProjectSession& session);
  // Evaluates a stored run again from its last checkpoint (runtime::evaluate_run, as `pha eval`).
  bool evaluateRun(const QString& storePath, qint64 runId);
  // Runs (or continues) the project's architecture search (its "search" section; runtime::
  // run_search, as `pha search --jobs N`). Progress: RunQueue's searchRunStarted / searchUpdated
  // / searchEnded; the rung runs' curves go to the live plots (jobs 1) like any run's.
  bool runSearch(const ProjectSession& session, int jobs = 1);
  void pauseOrResume();
  void cancelAll();

  bool isBusy() const;
  bool isPaused() const;

  // Asked before a Run when the project already finished some of its runs with the same name
  // and configuration (runtime::trained_runs; same seed: the same result): train only the runs
  // not trained yet (`newRuns`, offered when there are any), all of them again as new runs (new
  // ids), or nothing. Default: a message box with those buttons in a real window; on the
  // offscreen platform, all again.
  using Confirm = std::function<RepeatChoice(const QString& question, const QStringList& newRuns)>;
  void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }

 signals:
  void stateChanged();                                 // busy / paused changed: update actions
  void storeChanged(bool now);                         // runs were written; now: reload at once
  void profileStarted();                               // show the Efficiency dock
  void queueEnded();                                   // a pass that finished runs ended: its claims' verdicts are due
  void message(const QString& text, int timeoutMs);    // a transient status-bar message
  void errorOccurred(const QString& message);

 private:
  void connectTraining();
  void connectProfile();
  void connectEvaluation();
  void connectSearch();
  void startQueue();
  void beginPass(const ProjectSession* session);
  void onSteps(const QString& run, qint64 step, qint64 total, double wallS, double tokensPerS);
  void onRunEnded(const QString& run, const QString& status, const QString& reason);
  // Side by side: one live run's step; the status line and bar cover every live run.
  void onSideBySideSteps(const QString& run, const runtime::StepMetrics& s);
  void onQueueFinished();
  QString passSummary() const;
  RepeatChoice askRepeat(const QStringList& repeated, const QStringList& fresh);
  void showPaused();

  RunQueue* m_queue;
  RunMonitor* m_monitor;
  EfficiencyController* m_efficiency;
  QLabel* m_status;
  QProgressBar* m_progress;
  QString m_storePath;
  Confirm m_confirm;

  // This pass of the queue (runProject / measureEfficiency / evaluateRun until it empties).
  QElapsedTimer m_passClock;
  bool m_cancelled = false;
  int m_runsFinished = 0, m_runsNotFinished = 0;
  int m_runsCancelled = 0;    // of m_runsNotFinished: the ones Cancel stopped
  int m_runsDropped = 0;      // training runs still pending when Cancel was pressed
  bool m_profileCancelled = false;
  QString m_profileOutcome;                // "" until a profile ended in this pass
  qint64 m_stepsDone = 0;                  // steps of the runs that ended in this pass
  double m_measuredWall = 0;               // seconds over m_measuredSteps, runs that ended
  qint64 m_measuredSteps = 0;
  // The current run: its first and last step event (step, wall seconds).
  qint64 m_firstStep = -1, m_lastStep = 0;
  int m_searchIndex = 0, m_searchPlanned = 0;  // a search's rung run now and the runs planned so far
  QString m_searchRun;                          // its SearchJobId and settings
  double m_firstWall = 0, m_lastWall = 0;
  // Side by side: each live run's first and last step (step, wall seconds) and its planned steps.
  struct LiveRun {
    qint64 first = -1, last = 0, total = 0;
    double firstWall = 0, lastWall = 0;
  };
  std::map<QString, LiveRun> m_sideRuns;
  int m_sideJobs = 1;
};

}  // namespace pha::gui
