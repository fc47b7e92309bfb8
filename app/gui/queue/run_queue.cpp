#include "gui/queue/run_queue.h"

#include <QMetaObject>
#include <QThread>
#include <algorithm>
#include <exception>

#include "gui/project/pha_program.h"
#include "gui/queue/thread_mailbox.h"
#include "runtime/job.h"
#include "runtime/local_parallel.h"
#include "runtime/run_eval.h"
#include "runtime/profile_job.h"
#include "project/project.h"
#include "queue/work_queue.h"
#include "queue/side_by_side.h"
#include "project/run_threads.h"

namespace pha::gui {

QueuedRun QueuedRun::profileOf(const QString& project) {
  QueuedRun q;
  q.item.kind = project::QueueItemKind::Profile;
  q.item.project = project.toStdString();
  return q;
}

QueuedRun QueuedRun::evaluationOf(const QString& storePath, qint64 runId) {
  QueuedRun q;
  q.item.kind = project::QueueItemKind::Evaluate;
  q.item.project = storePath.toStdString();
  q.item.eval_run_id = runId;
  return q;
}

QueuedRun QueuedRun::searchOf(const QString& project, int jobs) {
  QueuedRun q;
  q.item.kind = project::QueueItemKind::Search;
  q.item.project = project.toStdString();
  q.item.search_jobs = std::max(1, jobs);
  return q;
}

RunQueue::RunQueue(QObject* parent) : QObject(parent) {
  qRegisterMetaType<pha::gui::EventBuffer::Batch>();
  qRegisterMetaType<search_runner::SearchSummary>();
  m_worker = new ThreadMailbox;  // work is posted to it as functors, run in m_thread
  m_worker->moveToThread(&m_thread);  // deleted by ~RunQueue once the thread has ended
  m_toGui = new ThreadMailbox(this);  // the worker's results, run on the GUI thread
  m_thread.setObjectName("pha-run-worker");
  m_thread.start();
  m_drainTimer.setInterval(33);  // <= ~30 GUI updates a second
  connect(&m_drainTimer, &QTimer::timeout, this, &RunQueue::drain);
  // PHA_DIST_TIMEOUT, as for `pha train --nproc`: how long a dead or hung rank may take to fail the run.
  const int timeout = qEnvironmentVariableIntValue("PHA_DIST_TIMEOUT");
  if (timeout > 0) m_work.settings().dist_timeout_s = timeout;
  // Called from ended() on the GUI thread (onItemDone).
  m_work.settings().on_tuning_followups = [this](const std::vector<std::string>& runs, const std::vector<std::string>& notes) {
    QStringList r, n;
    for (const auto& x : runs) r << QString::fromStdString(x);
    for (const auto& x : notes) n << QString::fromStdString(x);
    emit tuningFollowupsQueued(r, n);
  };
}

RunQueue::~RunQueue() {
  cancelAll();
  m_thread.quit();
  m_thread.wait();
  // On this thread, after the worker's: its destructor takes the mailbox mutex the worker's
  // last delivery held, so ThreadSanitizer sees the order (a deleteLater in the ending worker
  // thread raced with this thread's last post as far as it could tell).
  delete m_worker;
}

void RunQueue::setTrainingOverrides(const QString& json) {
  nlohmann::json j = json.isEmpty() ? nlohmann::json::object() : nlohmann::json::parse(json.toStdString(), nullptr, false);
  m_work.settings().training_overrides = j.is_object() ? j : nlohmann::json::object();
}

void RunQueue::enqueue(const QVector<QueuedRun>& runs) {
  std::vector<project::QueueItem> items;
  for (const QueuedRun& q : runs) items.push_back(q.item);
  m_work.add(std::move(items));
}

bool RunQueue::enqueuePass(const queue::PassPlan& plan, const queue::PassRequest& request, QString* error) {
  try {
    m_work.add(queue::pass_items(plan, request), plan.project.get());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

QStringList RunQueue::liveRuns() const {
  QStringList out;
  for (size_t i = 0; i < m_batch.size(); ++i)
    if (m_batchState[i] == 1) out << QString::fromStdString(m_batch[i].run);
  return out;
}

QueuePosition RunQueue::position() const {
  const queue::QueuePosition e = m_work.position();
  QueuePosition p;
  p.run = m_busy ? e.run : 0;
  p.runs = e.runs;
  p.profileNext = e.profile_next;
  p.pendingSteps = e.pending_steps;
  // Side by side: the batch's runs still waiting for a slot come first (the engine counts them
  // started); p.run is then the number of the last run started.
  std::vector<project::QueueItem> next;
  for (size_t i = 0; i < m_batch.size(); ++i)
    if (m_batchState[i] == 0) {
      next.push_back(m_batch[i]);
      p.pendingSteps += m_batch[i].planned_steps;
      --p.run;
    }
  next.insert(next.end(), e.next.begin(), e.next.end());
  for (const project::QueueItem& q : next) {
    switch (q.kind) {
      case project::QueueItemKind::Train:
        p.next << QString::fromStdString(q.run);
        p.nextRuns << QString::fromStdString(q.run);
        break;
      case project::QueueItemKind::Profile: p.next << tr("the efficiency profile"); break;
      case project::QueueItemKind::Evaluate: p.next << tr("evaluation of run %1").arg(q.eval_run_id); break;
      case project::QueueItemKind::Search: p.next << tr("the search"); break;
      case project::QueueItemKind::SearchTrial: p.next << tr("rung run %1").arg(QString::fromStdString(q.run)); break;
    }
  }
  return p;
}

void RunQueue::start() {
  if (!m_busy) startNext();
}

bool RunQueue::isPaused() const { return m_control && m_control->paused(); }

void RunQueue::pause() {
  if (m_control) m_control->set_paused(true);
}

void RunQueue::resume() {
  if (m_control) m_control->set_paused(false);
}

void RunQueue::cancelCurrent() {
  if (m_control) {
    m_control->set_paused(false);
    m_control->request_cancel();
  }
}

void RunQueue::cancelAll() {
  m_work.clear();
  m_dropUnstarted = true;  // side by side: the runs waiting for a slot are dropped too
  cancelCurrent();
}

int RunQueue::resolvedJobs() const {
  if (processes() > 1) return 1;
  if (m_jobs > 0) return m_jobs;
  std::vector<const project::RunPlan*> plans;
  for (const project::QueueItem& q : m_work.position().next)
    if (q.kind == project::QueueItemKind::Train && q.plan) plans.push_back(q.plan.get());
  if (m_work.current() && m_work.current()->plan) plans.push_back(m_work.current()->plan.get());
  return project::default_jobs(plans, m_work.settings().threads, std::max(1, QThread::idealThreadCount()));
}

namespace {
// The worker thread's observer: training events go to the buffer the drain timer empties; a
// search's rung starts and decisions are handed to callbacks that post to the GUI thread.
class QueueForwarder : public search_runner::SearchObserver {
 public:
  using RunFn = std::function<void(const search_runner::SearchJobId&, const std::string&, int, int)>;
  using DecidedFn = std::function<void(const search_runner::SearchSummary&)>;
  QueueForwarder(EventBuffer& buffer, RunFn run, DecidedFn decided)
      : m_buffer(buffer), m_run(std::move(run)), m_decided(std::move(decided)) {}
  void on_step(const runtime::StepMetrics& e) override { m_buffer.on_step(e); }
  void on_mixer(const runtime::MixerEvent& e) override { m_buffer.on_mixer(e); }
  void on_branch_norms(const runtime::BranchNormEvent& e) override { m_buffer.on_branch_norms(e); }
  void on_eval(const runtime::EvalEvent& e) override { m_buffer.on_eval(e); }
  void on_efficiency(const runtime::EfficiencyEvent& e) override { m_buffer.on_efficiency(e); }
  void on_log(const runtime::LogEvent& e) override { m_buffer.on_log(e); }
  void on_status(const runtime::StatusEvent& e) override { m_buffer.on_status(e); }
  void on_search_run(const search_runner::SearchJobId& id, const std::string& label, int index, int planned) override {
    m_run(id, label, index, planned);
  }
  void on_search_decided(const search_runner::SearchSummary& s) override { m_decided(s); }

 private:
  EventBuffer& m_buffer;
  RunFn m_run;
  DecidedFn m_decided;
};

// One line per measured point, as `pha eval` prints them.
QString evaluationSummary(const runtime::RunEvalResult& r) {
  QStringList parts;
  for (const auto& p : r.rows) {
    const QString where = QString::fromStdString(p.set) + (p.seq_len > 0 ? QString(" T=%1").arg(p.seq_len) : QString());
    if (p.kind == "text")
      parts << QObject::tr("%1: loss %2, ppl %3, bpb %4").arg(where).arg(p.loss, 0, 'f', 4).arg(p.perplexity, 0, 'f', 3)
                   .arg(p.bpb, 0, 'f', 4);
    else
      parts << QObject::tr("%1: accuracy %2").arg(where).arg(p.accuracy.micro, 0, 'f', 4);
  }
  return QObject::tr("run %1 at step %2: %3 (%4 rows recorded)")
      .arg(r.run_id)
      .arg(r.step)
      .arg(parts.join("; "))
      .arg(r.recorded);
}

QString profileMessage(const queue::QueueItemResult& r) {
  if (!r.profile) return QString::fromStdString(r.reason);
  const int points = static_cast<int>(runtime::sweep_point_count(r.profile->sweep));
  const int failed = r.profile->failed_points();
  return QObject::tr("%1 of %2 points measured%3")
      .arg(static_cast<int>(r.profile->points.size()) - failed)
      .arg(points)
      .arg(failed ? QObject::tr(", %1 failed (their reasons are in the profile runs' notes)").arg(failed) : QString());
}

QString searchMessage(const queue::QueueItemResult& r) {
  if (!r.search) return QString::fromStdString(r.reason);
  const auto& s = r.search->summary;
  return QObject::tr("%1 rung runs trained, %2 found finished in the store%3")
      .arg(s.runs_trained)
      .arg(s.runs_reused)
      .arg(s.complete ? QObject::tr("; every rung decided") : QObject::tr("; not complete (start it again to continue)"));
}
}  // namespace

// The `pha` program the item's worker processes run (data-parallel ranks, profile points,
// search workers); false with where it was looked for when it is needed and not found.
bool RunQueue::locateProgram(bool needed, QString* error) {
  if (!needed) return true;
  const QString exe = locatePhaProgram(error);
  if (exe.isEmpty()) return false;
  m_work.settings().program = exe.toStdString();
  return true;
}

void RunQueue::startNext() {
  std::vector<std::pair<project::QueueItem, std::string>> skipped;
  const std::optional<project::QueueItem> item = m_work.next(&skipped);
  for (const auto& [what, why] : skipped) emit profileEnded("skipped", QString::fromStdString(why), 0);
  if (!item) {
    m_busy = false;
    m_current = QueuedRun{};
    emit queueFinished();
    return;
  }
  if (item->kind == project::QueueItemKind::Train) {
    const int jobs = resolvedJobs();
    if (jobs > 1 && startSideBySide(m_work.with_trains_after(*item, SIZE_MAX), jobs)) return;
  }
  m_current = QueuedRun{*item};
  m_busy = true;
  m_buffer = std::make_shared<EventBuffer>();
  m_control = std::make_shared<runtime::RunControl>();
  m_worldSize = 1;
  m_backend.clear();
  const bool needsProgram = (m_current.isTraining() && processes() > 1) || m_current.isProfile() ||
                            (m_current.isSearch() && item->search_jobs > 1);
  QString error;
  const bool located = locateProgram(needsProgram, &error);
  if (m_current.isTraining()) emit runStarted(QString::fromStdString(item->project), m_current.run());
  if (!located) {
    queue::QueueItemResult failed;
    failed.reason = error.toStdString();
    // Reported like any other end, after the caller's own signal handling has run.
    m_toGui->post([this, it = *item, failed] { onItemDone(it, failed); });
    return;
  }
  m_drainTimer.start();
  queue::QueueSettings settings = m_work.settings();
  // Called in the worker thread: they only post to the GUI thread.
  settings.on_connected = [this](int world, const std::string& backend) {
    m_toGui->post([this, world, b = QString::fromStdString(backend)] {
      m_worldSize = world;
      m_backend = b;
    });
  };
  const QString dir = QString::fromStdString(item->project);
  settings.on_profile_start = [this, dir](const runtime::ProfileSweep& sweep) {
    QStringList models;
    for (const auto& m : sweep.models) models << QString::fromStdString(m);
    const int points = static_cast<int>(runtime::sweep_point_count(sweep));
    m_toGui->post([this, dir, points, models] { emit profileStarted(dir, points, models); });
  };
  auto buffer = m_buffer;
  auto control = m_control;
  m_worker->post([this, it = *item, settings, buffer, control, dir] {
    QueueForwarder forward(
        *buffer,
        [this, dir](const search_runner::SearchJobId& id, const std::string& label, int index, int planned) {
          m_toGui->post([this, dir, job = QString::fromStdString(id.text()), l = QString::fromStdString(label), index,
                         planned] { emit searchRunStarted(dir, job, l, index, planned); });
        },
        [this](const search_runner::SearchSummary& summary) {
          m_toGui->post([this, summary] { emit searchUpdated(summary); });
        });
    // Never throws: bad input ends the item failed with the error as its reason.
    const queue::QueueItemResult r = queue::run_queue_item(it, settings, forward, *control);
    m_toGui->post([this, it, r] { onItemDone(it, r); });
  });
}

bool RunQueue::startSideBySide(const std::vector<project::QueueItem>& batch, int jobs) {
  if (batch.size() < 2) return false;
  m_current = QueuedRun{batch.front()};
  m_busy = true;
  m_batch = batch;
  m_batchState.assign(batch.size(), 0);
  m_batchBuffers.clear();
  for (size_t i = 0; i < batch.size(); ++i) m_batchBuffers.push_back(std::make_shared<EventBuffer>());
  m_batchJobs = jobs;
  m_dropUnstarted = false;
  m_buffer.reset();
  m_control = std::make_shared<runtime::RunControl>();
  m_worldSize = 1;
  m_backend.clear();
  const QString dir = QString::fromStdString(batch.front().project);
  emit sideBySideStarted(dir, jobs, static_cast<int>(batch.size()));
  QString error;
  if (!locateProgram(true, &error)) {
    m_toGui->post([this, error] {
      for (size_t i = 0; i < m_batch.size(); ++i) {
        queue::QueueItemResult failed;
        failed.reason = error.toStdString();
        m_work.ended(m_batch[i], failed);
        emit runEnded(QString::fromStdString(m_batch[i].run), 0, "failed", error);
      }
      endSideBySide({}, {});
    });
    return true;
  }
  m_drainTimer.start();
  const queue::QueueSettings settings = m_work.settings();
  auto control = m_control;
  auto buffers = m_batchBuffers;
  m_worker->post([this, batch, settings, control, buffers, jobs] {
    queue::SideBySideHooks hooks;
    hooks.observer = [&buffers](std::size_t i) -> runtime::RunObserver& { return *buffers[i]; };
    // Called in the worker thread: they only post to the GUI thread.
    hooks.started = [this](std::size_t i) { m_toGui->post([this, i] { onBatchRunStarted(i); }); };
    hooks.ended = [this](std::size_t i, const queue::QueueItemResult& r) {
      m_toGui->post([this, i, r] { onBatchRunEnded(i, r); });
    };
    std::vector<std::size_t> never;
    QString failure;
    try {
      never = queue::run_side_by_side(batch, settings, jobs, *control, hooks);
    } catch (const std::exception& e) {  // a worker could not be started: the runs still waiting fail
      failure = QString::fromUtf8(e.what());
      for (size_t i = 0; i < batch.size(); ++i) never.push_back(i);
    }
    m_toGui->post([this, never, failure] { endSideBySide(never, failure); });
  });
  return true;
}

void RunQueue::onBatchRunStarted(std::size_t i) {
  if (i >= m_batch.size()) return;
  m_batchState[i] = 1;
  m_current = QueuedRun{m_batch[i]};
  emit runStarted(QString::fromStdString(m_batch[i].project), QString::fromStdString(m_batch[i].run));
}

void RunQueue::onBatchRunEnded(std::size_t i, const queue::QueueItemResult& r) {
  if (i >= m_batch.size()) return;
  drain();  // the run's last events before its end
  m_batchState[i] = 2;
  m_work.ended(m_batch[i], r);
  emit runEnded(QString::fromStdString(m_batch[i].run), r.run_id, QString::fromStdString(r.status),
                QString::fromStdString(r.reason));
}

void RunQueue::endSideBySide(const std::vector<std::size_t>& never, const QString& failure) {
  drain();
  m_drainTimer.stop();
  std::vector<project::QueueItem> back;
  for (std::size_t i : never) {
    if (i >= m_batch.size() || m_batchState[i] != 0) continue;
    if (failure.isEmpty()) {
      back.push_back(m_batch[i]);
      continue;
    }
    queue::QueueItemResult failed;
    failed.reason = failure.toStdString();
    m_work.ended(m_batch[i], failed);
    emit runEnded(QString::fromStdString(m_batch[i].run), 0, "failed", failure);
  }
  // Not started: back to the front of the queue, or (Cancel all) out of it.
  m_work.put_back(back);
  if (m_dropUnstarted) m_work.clear();
  m_batch.clear();
  m_batchState.clear();
  m_batchBuffers.clear();
  m_busy = false;
  emit sideBySideEnded();
  startNext();
}

void RunQueue::drain() {
  if (m_buffer) {
    EventBuffer::Batch batch = m_buffer->take();
    if (!batch.empty()) emit eventsArrived(batch);
  }
  for (size_t i = 0; i < m_batchBuffers.size(); ++i) {
    EventBuffer::Batch batch = m_batchBuffers[i]->take();
    if (batch.empty()) continue;
    batch.run = m_batch[i].run;
    emit eventsArrived(batch);
  }
}

void RunQueue::onItemDone(const project::QueueItem& item, const queue::QueueItemResult& r) {
  drain();  // the last events before the end
  m_drainTimer.stop();
  m_busy = false;
  m_work.ended(item, r);
  const QString status = QString::fromStdString(r.status);
  const QString reason = QString::fromStdString(r.reason);
  switch (item.kind) {
    case project::QueueItemKind::Train:
      emit runEnded(QString::fromStdString(item.run), r.run_id, status, reason);
      break;
    case project::QueueItemKind::Profile:
      emit profileEnded(status, profileMessage(r), r.profile ? static_cast<int>(r.profile->run_ids.size()) : 0);
      break;
    case project::QueueItemKind::Evaluate:
      emit evaluationEnded(item.eval_run_id, status, r.evaluation ? evaluationSummary(*r.evaluation) : reason);
      break;
    case project::QueueItemKind::Search:
    case project::QueueItemKind::SearchTrial:
      emit searchEnded(status, searchMessage(r), r.search ? r.search->summary : search_runner::SearchSummary{});
      break;
  }
  startNext();
}

}  // namespace pha::gui
