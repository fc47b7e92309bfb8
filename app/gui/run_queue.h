// RunQueue: the GUI's training queue. Runs of a project execute one after another in a worker
// thread (QThread) through pha::runtime::run_job; the engine's events are buffered by a
// thread-safe observer and drained on the GUI thread by a timer at most ~30 times a second,
// so the event loop never waits on training. Start, pause, resume and cancel act on the
// current run through RunControl (checked by the trainer every step). A queue item can also be
// the project's efficiency profile (runtime::profile_sweep in the same worker thread, each
// point in a `pha __profile-point` process), recorded in the store like `pha bench --project`.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QTimer>
#include <QVector>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/events.h"

namespace pha::gui {

// Thread-safe buffer: the trainer thread appends, the GUI thread takes everything at once.
class EventBuffer : public pha::runtime::RunObserver {
 public:
  struct Batch {
    std::vector<pha::runtime::StepMetrics> steps;
    std::vector<pha::runtime::MixerEvent> mixers;
    std::vector<pha::runtime::BranchNormEvent> norms;
    std::vector<pha::runtime::EvalEvent> evals;
    std::vector<pha::runtime::EfficiencyEvent> efficiency;
    std::vector<pha::runtime::LogEvent> logs;
    std::vector<pha::runtime::StatusEvent> statuses;
    bool empty() const;
  };

  void on_step(const pha::runtime::StepMetrics& e) override;
  void on_mixer(const pha::runtime::MixerEvent& e) override;
  void on_branch_norms(const pha::runtime::BranchNormEvent& e) override;
  void on_eval(const pha::runtime::EvalEvent& e) override;
  void on_efficiency(const pha::runtime::EfficiencyEvent& e) override;
  void on_log(const pha::runtime::LogEvent& e) override;
  void on_status(const pha::runtime::StatusEvent& e) override;

  Batch take();

 private:
  std::mutex m_mutex;
  Batch m_batch;
};

struct QueuedRun {
  QString project;       // project folder
  QString run;           // run name from runs_to_make(); empty for a profile item
  bool profile = false;  // the project's efficiency profile instead of a training run

  static QueuedRun profileOf(const QString& project) { return {project, QString(), true}; }
};

class RunQueue : public QObject {
  Q_OBJECT
 public:
  explicit RunQueue(QObject* parent = nullptr);
  ~RunQueue() override;

  void enqueue(const QVector<QueuedRun>& runs);
  void start();  // starts the next run when idle
  void pause();
  void resume();
  void cancelCurrent();
  void cancelAll();  // cancels the current run and drops the pending ones

  bool isBusy() const { return m_busy; }
  bool isPaused() const;
  bool isProfiling() const { return m_busy && m_current.profile; }
  int pendingCount() const { return m_pending.size(); }
  QString currentRun() const { return m_current.run; }
  void setThreads(int threads) { m_threads = threads; }
  void setTrainingOverrides(const QString& json) { m_overrides = json; }  // JSON object text

 signals:
  void runStarted(const QString& project, const QString& run);
  void eventsArrived(const pha::gui::EventBuffer::Batch& batch);
  // status: a runtime::job_status_name; runId 0 when the run never reached the store
  void runEnded(const QString& run, qint64 runId, const QString& status, const QString& reason);
  // The profile item: its sweep is known (points = models x T x phases, models its labels)...
  void profileStarted(const QString& project, int points, const QStringList& models);
  // ... and it ended. status: finished | cancelled | failed; storedRuns: "profile: <model>" runs written.
  void profileEnded(const QString& status, const QString& message, int storedRuns);
  void queueFinished();

 private:
  void startNext();
  void startProfile();
  void drain();
  void onWorkerDone(const QString& run, qint64 runId, const QString& status, const QString& reason);
  void onProfileDone(const QString& status, const QString& message, int storedRuns);

  QVector<QueuedRun> m_pending;
  QueuedRun m_current;
  bool m_busy = false;
  int m_threads = 0;
  QString m_overrides;
  QThread m_thread;
  QObject* m_worker = nullptr;  // lives in m_thread
  QTimer m_drainTimer;
  std::shared_ptr<EventBuffer> m_buffer;
  std::shared_ptr<pha::runtime::RunControl> m_control;
};

}  // namespace pha::gui

Q_DECLARE_METATYPE(pha::gui::EventBuffer::Batch)
