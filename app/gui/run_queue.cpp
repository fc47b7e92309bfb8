#include "run_queue.h"

#include <QMetaObject>
#include <algorithm>
#include <exception>

#include "pha_program.h"
#include "thread_mailbox.h"
#include "runtime/job.h"
#include "runtime/local_parallel.h"
#include "runtime/run_eval.h"
#include "runtime/profile_job.h"
#include "runtime/project.h"

namespace pha::gui {

bool EventBuffer::Batch::empty() const {
  return steps.empty() && mixers.empty() && norms.empty() && evals.empty() && efficiency.empty() && logs.empty() &&
         statuses.empty();
}

void EventBuffer::on_step(const runtime::StepMetrics& e) {
  std::lock_guard lock(m_mutex);
  m_batch.steps.push_back(e);
}
void EventBuffer::on_mixer(const runtime::MixerEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.mixers.push_back(e);
}
void EventBuffer::on_branch_norms(const runtime::BranchNormEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.norms.push_back(e);
}
void EventBuffer::on_eval(const runtime::EvalEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.evals.push_back(e);
}
void EventBuffer::on_efficiency(const runtime::EfficiencyEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.efficiency.push_back(e);
}
void EventBuffer::on_log(const runtime::LogEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.logs.push_back(e);
}
void EventBuffer::on_status(const runtime::StatusEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.statuses.push_back(e);
}

EventBuffer::Batch EventBuffer::take() {
  std::lock_guard lock(m_mutex);
  Batch out;
  std::swap(out, m_batch);
  return out;
}

RunQueue::RunQueue(QObject* parent) : QObject(parent) {
  qRegisterMetaType<pha::gui::EventBuffer::Batch>();
  m_worker = new ThreadMailbox;  // work is posted to it as functors, run in m_thread
  m_worker->moveToThread(&m_thread);  // deleted by ~RunQueue once the thread has ended
  m_toGui = new ThreadMailbox(this);  // the worker's results, run on the GUI thread
  m_thread.setObjectName("pha-run-worker");
  m_thread.start();
  m_drainTimer.setInterval(33);  // <= ~30 GUI updates a second
  connect(&m_drainTimer, &QTimer::timeout, this, &RunQueue::drain);
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

void RunQueue::enqueue(const QVector<QueuedRun>& runs) { m_pending += runs; }

bool RunQueue::enqueueProject(const QString& project, QString* error, const QStringList& only) {
  try {
    QVector<QueuedRun> runs;
    runtime::QueueOptions options;
    for (const QString& r : only) options.runs.push_back(r.toStdString());
    for (auto& item : runtime::project_queue(runtime::load_project(project.toStdString()), options))
      runs.push_back({project, std::move(item), 0, {}});
    enqueue(runs);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

QueuePosition RunQueue::position() const {
  QueuePosition p;
  const bool training = m_busy && !m_current.isProfile() && !m_current.isEvaluation();
  p.run = training ? m_runsStarted : 0;
  p.runs = m_runsStarted;
  for (const QueuedRun& q : m_pending) {
    if (q.isProfile()) {
      p.profileNext = true;
      p.next << tr("the efficiency profile");
    } else if (q.isEvaluation()) {
      p.next << tr("evaluation of run %1").arg(q.evalRunId);
    } else {
      ++p.runs;
      p.next << q.run();
      p.nextRuns << q.run();
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
  m_pending.clear();
  cancelCurrent();
}

void RunQueue::startNext() {
  // The engine's policy: the profile after the runs only follows a complete pass.
  while (!m_pending.isEmpty()) {
    const std::string why = runtime::skip_reason(m_pending.first().item, m_unfinished);
    if (why.empty()) break;
    m_pending.removeFirst();
    emit profileEnded("skipped", QString::fromStdString(why), 0);
  }
  if (m_pending.isEmpty()) {
    m_busy = false;
    m_unfinished = 0;
    m_runsStarted = 0;
    m_current = QueuedRun{};
    emit queueFinished();
    return;
  }
  m_current = m_pending.takeFirst();
  m_busy = true;
  if (!m_current.isProfile() && !m_current.isEvaluation()) ++m_runsStarted;
  m_buffer = std::make_shared<EventBuffer>();
  m_control = std::make_shared<runtime::RunControl>();
  if (m_current.isProfile()) {
    startProfile();
    return;
  }
  if (m_current.isEvaluation()) {
    startEvaluation();
    return;
  }
  runtime::JobSpec spec;
  spec.project = m_current.project.toStdString();
  spec.run = m_current.item.run;
  spec.resume_run_id = m_current.item.resume_run_id;
  spec.threads = m_threads;
  if (!m_overrides.isEmpty()) spec.training_overrides = nlohmann::json::parse(m_overrides.toStdString(), nullptr, false);
  if (spec.training_overrides.is_discarded() || !spec.training_overrides.is_object())
    spec.training_overrides = nlohmann::json::object();
  m_worldSize = 1;
  m_backend.clear();
  runtime::LocalParallelOptions parallel;
  parallel.processes = std::max(1, m_processes);
  if (parallel.processes > 1 && !locateWorkerProgram(&parallel)) return;
  emit runStarted(m_current.project, m_current.run());
  m_drainTimer.start();
  // Called in the worker thread once the group is connected: only posts to the GUI thread.
  parallel.on_connected = [this](int world, const std::string& backend) {
    m_toGui->post([this, world, b = QString::fromStdString(backend)] {
      m_worldSize = world;
      m_backend = b;
    });
  };

  auto buffer = m_buffer;
  auto control = m_control;
  const QString name = m_current.run();
  m_worker->post([this, spec, parallel, buffer, control, name] {
    qint64 runId = 0;
    QString status = "failed", reason;
    try {
      // One process: run_job itself; N: the same run_job as rank 0 of a local group.
      const runtime::JobResult r = runtime::run_job_local_parallel(spec, parallel, *buffer, *control);
      runId = r.run_id;
      status = runtime::job_status_name(r.status);
      reason = QString::fromStdString(r.reason);
    } catch (const std::exception& e) {  // bad project or data: nothing was written
      reason = QString::fromUtf8(e.what());
    } catch (...) {
      reason = "unknown error";
    }
    m_toGui->post([this, name, runId, status, reason] { onWorkerDone(name, runId, status, reason); });
  });
}

// The workers' program for a data-parallel run; without it the run ends failed at once, with
// where it was looked for.
bool RunQueue::locateWorkerProgram(runtime::LocalParallelOptions* parallel) {
  QString error;
  const QString exe = locatePhaProgram(&error);
  if (exe.isEmpty()) {
    const QString name = m_current.run();
    emit runStarted(m_current.project, name);
    m_toGui->post([this, name, error] { onWorkerDone(name, 0, "failed", error); });
    return false;
  }
  parallel->program = exe.toStdString();
  // PHA_DIST_TIMEOUT, as for `pha train --nproc`: how long a dead or hung rank may take to fail the run.
  const int timeout = qEnvironmentVariableIntValue("PHA_DIST_TIMEOUT");
  if (timeout > 0) parallel->timeout_s = timeout;
  return true;
}

void RunQueue::startProfile() {
  QString error;
  const QString exe = locatePhaProgram(&error);
  if (exe.isEmpty()) {
    // Reported like any other end, after the caller's own signal handling has run.
    m_toGui->post([this, error] { onProfileDone("failed", error, 0); });
    return;
  }
  m_drainTimer.start();
  auto buffer = m_buffer;
  auto control = m_control;
  runtime::ProfileJobSpec spec;
  spec.project = m_current.project.toStdString();
  spec.threads = m_threads;
  spec.program = exe.toStdString();
  // Called in the worker thread once the sweep is known: only posts to the GUI thread.
  spec.on_start = [this, dir = m_current.project](const runtime::ProfileSweep& sweep) {
    QStringList models;
    for (const auto& m : sweep.models) models << QString::fromStdString(m);
    const int points = static_cast<int>(runtime::sweep_point_count(sweep));
    m_toGui->post([this, dir, points, models] { emit profileStarted(dir, points, models); });
  };
  m_worker->post([this, spec, buffer, control] {
    QString status = "failed", message;
    int stored = 0;
    try {
      // Loading validates the project (and its "profile" section) off the GUI thread.
      const runtime::ProfileJobResult r = runtime::run_profile_job(spec, *buffer, *control);
      const int points = static_cast<int>(runtime::sweep_point_count(r.sweep));
      const int failed = r.failed_points();
      stored = static_cast<int>(r.run_ids.size());
      status = r.cancelled ? "cancelled" : "finished";
      message = QObject::tr("%1 of %2 points measured%3")
                    .arg(static_cast<int>(r.points.size()) - failed)
                    .arg(points)
                    .arg(failed ? QObject::tr(", %1 failed (their reasons are in the profile runs' notes)").arg(failed)
                                : QString());
    } catch (const std::exception& e) {
      message = QString::fromUtf8(e.what());
    } catch (...) {
      message = "unknown error";
    }
    m_toGui->post([this, status, message, stored] { onProfileDone(status, message, stored); });
  });
}

namespace {
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
}  // namespace

void RunQueue::startEvaluation() {
  const std::string store = m_current.evalStore.toStdString();
  const qint64 runId = m_current.evalRunId;
  m_worker->post([this, store, runId] {
    QString status = "failed", summary;
    try {
      summary = evaluationSummary(runtime::evaluate_run(store, runId, runtime::RunEvalOptions{}));
      status = "finished";
    } catch (const std::exception& e) {  // no checkpoint, data gone, ...: nothing was recorded
      summary = QString::fromUtf8(e.what());
    } catch (...) {
      summary = "unknown error";
    }
    m_toGui->post([this, runId, status, summary] {
      m_busy = false;
      emit evaluationEnded(runId, status, summary);
      startNext();
    });
  });
}

void RunQueue::onProfileDone(const QString& status, const QString& message, int storedRuns) {
  drain();
  m_drainTimer.stop();
  m_busy = false;
  emit profileEnded(status, message, storedRuns);
  startNext();
}

void RunQueue::drain() {
  if (!m_buffer) return;
  EventBuffer::Batch batch = m_buffer->take();
  if (!batch.empty()) emit eventsArrived(batch);
}

void RunQueue::onWorkerDone(const QString& run, qint64 runId, const QString& status, const QString& reason) {
  drain();  // the last events before the end
  m_drainTimer.stop();
  m_busy = false;
  if (status != runtime::job_status_name(runtime::JobStatus::Finished)) ++m_unfinished;
  emit runEnded(run, runId, status, reason);
  startNext();
}

}  // namespace pha::gui
