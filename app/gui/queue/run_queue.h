// RunQueue: the window's side of the engine's one work queue (queue/work_queue.h). The
// engine owns what is queued, in what order, what is skipped (the profile after an unfinished
// run), the one rule for shortening a run, the planned steps and where a pass stands, and how
// each item runs (runtime::run_queue_item: a training run, the efficiency profile, an
// evaluation, a search); `pha train` and `pha search` drive the same queue. This class keeps
// only the threading and the signals: the item runs in a worker thread (QThread), the engine's
// events are buffered by a thread-safe observer and drained on the GUI thread by a timer at
// most ~30 times a second, so the event loop never waits on training. Pause, resume and cancel
// act on the current item through RunControl (checked by the trainer every step). With
// processes > 1 a training run is data-parallel: this process is rank 0 (its worker thread
// joins the group and runs the same run_job), the other ranks are `pha` processes. With jobs >
// 1 (setJobs) consecutive training runs train side by side, each in a `pha __train-job` worker
// process (queue/side_by_side.h, as `pha train --jobs`), their events replayed into one buffer
// per run; pause and cancel reach every live run.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QTimer>
#include <QVector>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/events.h"
#include "gui/monitor/event_buffer.h"
#include "project/project_queue.h"
#include "search_runner/search_job.h"
#include "queue/pass_plan.h"
#include "queue/work_queue.h"

namespace pha::gui {

class ThreadMailbox;

// One item of the window's queue: the engine's queue item (queue/work_queue.h), built here
// for the window's actions.
struct QueuedRun {
  project::QueueItem item;

  bool isTraining() const { return item.kind == project::QueueItemKind::Train; }
  bool isProfile() const { return item.kind == project::QueueItemKind::Profile; }
  bool isSearch() const { return item.kind == project::QueueItemKind::Search; }
  QString run() const { return QString::fromStdString(item.run); }
  // Run > Measure efficiency: the profile alone, whatever ran before.
  static QueuedRun profileOf(const QString& project);
  // Run > Evaluate: a stored run evaluated again (runtime::evaluate_run, the same plan and rows
  // as the training's final evaluation and `pha eval`).
  static QueuedRun evaluationOf(const QString& storePath, qint64 runId);
  // Run > Search: the project's architecture search (runtime::run_search, as `pha search`), with
  // this many rung runs at once (each in a `pha search --only` worker when > 1).
  static QueuedRun searchOf(const QString& project, int jobs);
};

// Where the queue stands in its current pass (runtime::WorkQueue::position, in words):
// "run 2 of 3: transformer-tiny, then sequential-tiny and the efficiency profile".
struct QueuePosition {
  int run = 0;       // the current training run's number in this pass (1-based; 0: none running)
  int runs = 0;      // training runs in this pass (started + pending)
  QStringList next;  // what follows, in order: run names, "the efficiency profile", "evaluation of run N", "the search"
  QStringList nextRuns;  // the pending training runs' names
  bool profileNext = false;  // an efficiency profile is still pending
  qint64 pendingSteps = 0;   // the pending training runs' planned steps (the queue's overrides applied)
};

class RunQueue : public QObject {
  Q_OBJECT
 public:
  explicit RunQueue(QObject* parent = nullptr);
  ~RunQueue() override;

  void enqueue(const QVector<QueuedRun>& runs);
  // A pass over a project as `pha train` queues it (queue/pass_plan.h: the plan read once, the
  // request's runs, then the profile when project.json asks for it), each run's planned steps
  // with the training overrides set now. False with the reason in *error for a bad request.
  bool enqueuePass(const queue::PassPlan& plan, const queue::PassRequest& request, QString* error);
  // The engine's queue as it stands (its pending items: what a pass will train).
  const queue::WorkQueue& work() const { return m_work; }
  void start();  // starts the next run when idle
  void pause();
  void resume();
  void cancelCurrent();
  void cancelAll();  // cancels the current run and drops the pending ones

  bool isBusy() const { return m_busy; }
  bool isPaused() const;
  bool isProfiling() const { return m_busy && m_current.isProfile(); }
  bool isSearching() const { return m_busy && m_current.isSearch(); }
  int pendingCount() const { return static_cast<int>(m_work.pending()); }
  QString currentRun() const { return m_current.run(); }
  QueuePosition position() const;
  void setThreads(int threads) { m_work.settings().threads = threads; }
  // Data-parallel processes per training run (the Training tab's "processes"; 1: one process).
  // With N > 1 the worker thread is rank 0 (runtime::run_job_local_parallel) and ranks 1..N-1
  // are `pha __train-rank` processes; events reach the monitor exactly as for one process.
  void setProcesses(int processes) { m_work.settings().processes = processes < 1 ? 1 : processes; }
  int processes() const { return m_work.settings().processes; }
  // The current run's process group once connected: world size (1 for one process) and
  // backend ("gloo", "nccl"; empty for one process).
  int currentWorldSize() const { return m_worldSize; }
  QString currentBackend() const { return m_backend; }
  void setTrainingOverrides(const QString& json);  // JSON object text (not an object: none)
  // Training runs side by side (the Training tab's "Runs at once"; `pha train --jobs`): 0 = what
  // the machine affords (project::default_jobs: cores / each run's threads), 1 = one after
  // another. Data-parallel runs (processes > 1) always train one after another.
  void setJobs(int jobs) { m_jobs = jobs < 0 ? 0 : jobs; }
  int jobs() const { return m_jobs; }
  // Runs are training side by side now (the runs live and the ones waiting for a slot).
  bool isSideBySide() const { return m_busy && !m_batch.empty(); }
  int sideBySideJobs() const { return m_batchJobs; }
  QStringList liveRuns() const;

 signals:
  void runStarted(const QString& project, const QString& run);
  // Side by side: `runs` training runs start, at most `jobs` at once (each then runStarted /
  // runEnded as it starts and ends), and they have all ended.
  void sideBySideStarted(const QString& project, int jobs, int runs);
  void sideBySideEnded();
  void eventsArrived(const pha::gui::EventBuffer::Batch& batch);
  // status: a runtime::job_status_name; runId 0 when the run never reached the store
  void runEnded(const QString& run, qint64 runId, const QString& status, const QString& reason);
  // The tune section planned follow-up runs from the results and queued them (the engine's
  // work queue: project/project_tuning.h); `notes`: follow-ups it could not plan.
  void tuningFollowupsQueued(const QStringList& runs, const QStringList& notes);
  // The profile item: its sweep is known (points = models x T x phases, models its labels)...
  void profileStarted(const QString& project, int points, const QStringList& models);
  // ... and it ended. status: finished | cancelled | failed | skipped (a run before it did not
  // finish; message says so); storedRuns: the profile runs written.
  void profileEnded(const QString& status, const QString& message, int storedRuns);
  // An evaluation item ended: status finished | failed; summary: the figures (or the error).
  void evaluationEnded(qint64 runId, const QString& status, const QString& summary);
  // A search item: a rung run starts (`index` of `planned` known so far; job: the
  // runtime::SearchJobId text, label: the trial's settings), a rung was decided (the whole
  // search's state: trials with their per-rung history), and the search ended: status
  // finished | cancelled | failed, message: what it did or the error, summary: its last state.
  void searchRunStarted(const QString& project, const QString& job, const QString& label, int index, int planned);
  void searchUpdated(const search_runner::SearchSummary& summary);
  void searchEnded(const QString& status, const QString& message, const search_runner::SearchSummary& summary);
  void queueFinished();

 private:
  void startNext();
  // Starts `batch` (training runs, the first `next` gave) side by side; false when it is one run.
  bool startSideBySide(const std::vector<project::QueueItem>& batch, int jobs);
  void onBatchRunStarted(std::size_t i);
  void onBatchRunEnded(std::size_t i, const queue::QueueItemResult& r);
  // The batch has ended; `never`: the runs that never started (back to the queue, dropped after
  // Cancel all, or failed with `failure` when a worker could not be started).
  void endSideBySide(const std::vector<std::size_t>& never, const QString& failure);
  int resolvedJobs() const;
  bool locateProgram(bool needed, QString* error);
  void onItemDone(const project::QueueItem& item, const queue::QueueItemResult& result);
  void drain();

  queue::WorkQueue m_work;  // the engine's queue: pending items, skips, counters, position
  QueuedRun m_current;
  bool m_busy = false;
  int m_worldSize = 1;
  QString m_backend;
  QThread m_thread;
  ThreadMailbox* m_worker = nullptr;  // lives in m_thread: work runs there
  ThreadMailbox* m_toGui = nullptr;   // lives in the GUI thread: the worker's results
  QTimer m_drainTimer;
  std::shared_ptr<EventBuffer> m_buffer;
  std::shared_ptr<pha::runtime::RunControl> m_control;
  int m_jobs = 0;
  // The side-by-side batch: its items, one event buffer each, which have started / ended, and
  // whether a Cancel all drops the ones not started (else they go back to the queue).
  std::vector<project::QueueItem> m_batch;
  std::vector<std::shared_ptr<EventBuffer>> m_batchBuffers;
  std::vector<int> m_batchState;  // 0 waiting, 1 live, 2 ended
  int m_batchJobs = 1;
  bool m_dropUnstarted = false;
};

}  // namespace pha::gui

Q_DECLARE_METATYPE(pha::search_runner::SearchSummary)

