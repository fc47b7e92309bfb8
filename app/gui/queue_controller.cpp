#include "queue_controller.h"

#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <algorithm>
#include <cmath>

#include "efficiency_controller.h"
#include "project_session.h"
#include "run_monitor.h"
#include "run_queue.h"

namespace pha::gui {

QueueController::QueueController(RunQueue* queue, RunMonitor* monitor, EfficiencyController* efficiency,
                                 QLabel* statusLabel, QProgressBar* progress, QObject* parent)
    : QObject(parent), m_queue(queue), m_monitor(monitor), m_efficiency(efficiency), m_status(statusLabel),
      m_progress(progress) {
  connectTraining();
  connectProfile();
  connectEvaluation();
}

bool QueueController::isBusy() const { return m_queue->isBusy(); }
bool QueueController::isPaused() const { return m_queue->isPaused(); }

bool QueueController::runProject(const ProjectSession& session) {
  if (!session.isOpen()) {
    emit errorOccurred(tr("Open a project first (File > Open project)."));
    return false;
  }
  // The engine's queue: the runs, then the profile when project.json asks for it.
  QString error;
  if (!m_queue->enqueueProject(session.dir(), &error)) {
    emit errorOccurred(tr("Cannot run the project: %1").arg(error));
    return false;
  }
  m_storePath = session.storePath();
  startQueue();
  return true;
}

bool QueueController::measureEfficiency(const ProjectSession& session) {
  if (!session.isOpen()) {
    emit errorOccurred(tr("Open a project first (File > Open project)."));
    return false;
  }
  if (m_queue->isBusy()) {
    emit errorOccurred(tr("Wait for the run queue to finish (or cancel it) before measuring efficiency."));
    return false;
  }
  m_storePath = session.storePath();
  m_queue->enqueue({QueuedRun::profileOf(session.dir())});
  startQueue();
  return true;
}

bool QueueController::evaluateRun(const QString& storePath, qint64 runId) {
  if (m_queue->isBusy()) {
    emit errorOccurred(tr("Wait for the run queue to finish (or cancel it) before evaluating a run."));
    return false;
  }
  m_queue->enqueue({QueuedRun::evaluationOf(storePath, runId)});
  m_status->setText(tr("Evaluating run %1 from its last checkpoint (the same plan as its final evaluation)").arg(runId));
  m_progress->setRange(0, 0);
  startQueue();
  return true;
}

void QueueController::startQueue() {
  m_queue->setThreads(QSettings().value("engine/threads", 0).toInt());
  m_queue->start();
  emit stateChanged();
}

void QueueController::pauseOrResume() {
  if (!m_queue->isBusy()) return;
  if (m_queue->isPaused()) {
    m_queue->resume();
    emit message(tr("Resumed"), 3000);
  } else {
    m_queue->pause();
    emit message(tr("Paused after the current step"), 3000);
  }
  emit stateChanged();
}

void QueueController::cancelAll() {
  if (!m_queue->isBusy()) return;
  m_queue->cancelAll();
  emit message(tr("Cancelling: the run writes a checkpoint and stops"), 5000);
}

void QueueController::connectTraining() {
  connect(m_queue, &RunQueue::runStarted, this, [this](const QString&, const QString& run) {
    m_monitor->beginLive(run);
    m_progress->setRange(0, 0);
    m_status->setText(tr("Training %1 (%2 more queued)").arg(run).arg(m_queue->pendingCount()));
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::eventsArrived, this, [this](const EventBuffer::Batch& batch) {
    if (!batch.efficiency.empty()) {
      const QString line = m_efficiency->addEvents(batch.efficiency);
      if (!line.isEmpty()) m_status->setText(line);
      m_progress->setRange(0, std::max(1, m_efficiency->pointsExpected()));
      m_progress->setValue(m_efficiency->pointsDone());
    }
    if (m_queue->isProfiling()) return;  // the profile's events are efficiency points only
    m_monitor->addEvents(batch);
    if (!batch.steps.empty()) {
      const auto& s = batch.steps.back();
      m_progress->setRange(0, static_cast<int>(s.total_steps));
      m_progress->setValue(static_cast<int>(s.step));
      m_status->setText(tr("Training %1: step %2/%3, %4 tokens/s%5")
                            .arg(m_queue->currentRun())
                            .arg(s.step)
                            .arg(s.total_steps)
                            .arg(std::lround(s.tokens_per_s))
                            .arg(s.eta_s >= 0 ? tr(", ETA %1 s").arg(std::lround(s.eta_s)) : QString()));
    }
    for (const auto& log : batch.logs)
      if (log.level == runtime::LogEvent::Level::Error) emit message(QString::fromStdString(log.message), 10000);
    emit storeChanged(!batch.statuses.empty());
  });
  connect(m_queue, &RunQueue::runEnded, this,
          [this](const QString& run, qint64, const QString& status, const QString& reason) {
            m_monitor->endLive();
            emit storeChanged(true);
            const QString text = tr("%1: %2%3").arg(run, status, reason.isEmpty() ? QString() : " - " + reason);
            if (status == "failed")
              emit errorOccurred(text);
            else
              emit message(text, 10000);
            emit stateChanged();
          });
  connect(m_queue, &RunQueue::queueFinished, this, [this] {
    m_status->setText(tr("Queue finished"));
    m_efficiency->load(m_storePath);
    emit stateChanged();
  });
}

void QueueController::connectEvaluation() {
  connect(m_queue, &RunQueue::evaluationEnded, this, [this](qint64 runId, const QString& status, const QString& summary) {
    emit storeChanged(true);
    if (status == "finished") {
      m_status->setText(tr("Evaluated %1").arg(summary));
      emit message(tr("Evaluation of run %1 recorded").arg(runId), 10000);
    } else {
      m_status->setText(tr("Evaluation of run %1 failed").arg(runId));
      emit errorOccurred(tr("Cannot evaluate run %1: %2").arg(runId).arg(summary));
    }
    emit stateChanged();
  });
}

void QueueController::connectProfile() {
  connect(m_queue, &RunQueue::profileStarted, this, [this](const QString&, int points, const QStringList& models) {
    m_efficiency->beginProfile(points);
    m_progress->setRange(0, std::max(1, points));
    m_progress->setValue(0);
    m_status->setText(
        tr("Measuring efficiency: %1 points (%2), each in a fresh pha process").arg(points).arg(models.join(", ")));
    emit profileStarted();
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::profileEnded, this, [this](const QString& status, const QString& message, int stored) {
    m_efficiency->endProfile(m_storePath);
    emit storeChanged(true);
    const QString text = tr("Efficiency profile %1: %2; %3 profile run(s) recorded").arg(status, message).arg(stored);
    m_status->setText(text);
    if (status == "failed")
      emit errorOccurred(tr("The efficiency profile failed: %1").arg(message));
    else
      emit this->message(text, 10000);
    emit stateChanged();
  });
}

}  // namespace pha::gui
