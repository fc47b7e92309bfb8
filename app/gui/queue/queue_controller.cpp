#include "gui/queue/queue_controller.h"

#include <QApplication>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/duration_format.h"
#include "gui/monitor/efficiency_controller.h"
#include "gui/config/processes_setting.h"
#include "gui/project/plan_dialog.h"
#include "gui/project/project_session.h"
#include "gui/monitor/run_monitor.h"
#include "gui/queue/run_queue.h"
#include "project/project.h"
#include "project/project_queue.h"
#include "queue/pass_plan.h"
#include "queue/work_queue.h"
#include "store/store.h"

namespace pha::gui {

// The one duration text (core/duration_format.h); an unknown ETA never gets here.
QString formatEta(double seconds) { return QString::fromStdString(core::format_duration(std::max(0.0, seconds))); }

namespace {
// "then sequential-tiny, then the efficiency profile"; "last in the queue".
QString followsText(const QStringList& next) {
  return next.isEmpty() ? QObject::tr("last in the queue") : QObject::tr("then %1").arg(next.join(QObject::tr(", then ")));
}
}  // namespace

QueueController::QueueController(RunQueue* queue, RunMonitor* monitor, EfficiencyController* efficiency,
                                 QLabel* statusLabel, QProgressBar* progress, QObject* parent)
    : QObject(parent), m_queue(queue), m_monitor(monitor), m_efficiency(efficiency), m_status(statusLabel),
      m_progress(progress) {
  m_status->setToolTip(
      tr("Queue ETA: the current run's steps left at its own measured seconds per step, plus the queued runs' "
         "steps at the mean seconds per step measured so far in this queue (evaluations included). It assumes the "
         "queued runs step as fast; the efficiency profile is not included."));
  connectTraining();
  connectProfile();
  connectEvaluation();
  connectSearch();
}

bool QueueController::isBusy() const { return m_queue->isBusy(); }
bool QueueController::isPaused() const { return m_queue->isPaused(); }

QueueController::RepeatChoice QueueController::askRepeat(const QStringList& repeated, const QStringList& fresh) {
  const QString question =
      fresh.isEmpty()
          ? tr("Every run of this project is already trained with this configuration: %1. With the same seed they "
               "would train to the same result. Train them all again as new runs (each gets a new id)?")
                .arg(repeated.join(", "))
          : tr("This project already has finished runs with the same name and configuration: %1. With the same seed "
               "they would train to the same result. Not trained yet: %2. Train only those, or all of them again as "
               "new runs (each gets a new id)?")
                .arg(repeated.join(", "), fresh.join(", "));
  if (m_confirm) return m_confirm(question, fresh);
  if (QApplication::platformName() == "offscreen") return RepeatChoice::All;
  QMessageBox box(QMessageBox::Question, tr("Train again?"), question, QMessageBox::NoButton,
                  qobject_cast<QWidget*>(parent()));
  const QString onlyText = fresh.size() == 1 ? tr("Train only %1").arg(fresh.front())
                                             : tr("Train only the %1 new runs").arg(fresh.size());
  QPushButton* onlyNew = fresh.isEmpty() ? nullptr : box.addButton(onlyText, QMessageBox::AcceptRole);
  QPushButton* all = box.addButton(tr("Train all again"), QMessageBox::DestructiveRole);
  QPushButton* cancel = box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(onlyNew ? onlyNew : cancel);
  box.exec();
  if (onlyNew && box.clickedButton() == onlyNew) return RepeatChoice::OnlyNew;
  if (box.clickedButton() == all) return RepeatChoice::All;
  return RepeatChoice::Nothing;
}

bool QueueController::runProject(const ProjectSession& session, std::optional<RepeatChoice> decided) {
  if (!session.isOpen()) {
    emit errorOccurred(tr("Open a project first (File > Open project)."));
    return false;
  }
  // The pass is planned once, here, as `pha train` plans it (queue/pass_plan.h): project.json
  // with the tune follow-ups its store plans, read once; what the queue trains is this plan,
  // whatever happens to project.json before each run starts (QueueItem::resolved).
  queue::PassPlan plan;
  try {
    plan = queue::read_pass(session.dir().toStdString());
  } catch (const std::exception& e) {
    emit errorOccurred(tr("Cannot run the project: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  queue::PassRequest request;  // every run, then the profile when project.json asks for it
  if (!plan.trained.empty()) {
    QStringList repeated;
    QStringList fresh;
    for (const auto& r : plan.project->runs) fresh << QString::fromStdString(r.name);
    for (const auto& t : plan.trained) {
      repeated << tr("%1 (run %2)").arg(QString::fromStdString(t.run)).arg(t.run_id);
      fresh.removeAll(QString::fromStdString(t.run));
    }
    const RepeatChoice choice = decided ? *decided : askRepeat(repeated, fresh);
    if (choice == RepeatChoice::Nothing || (choice == RepeatChoice::OnlyNew && fresh.isEmpty())) {
      m_status->setText(tr("Not started: %1 already trained with this configuration").arg(repeated.join(", ")));
      return false;
    }
    request.only_new = choice == RepeatChoice::OnlyNew;
  }
  QString error;
  if (!m_queue->enqueuePass(plan, request, &error)) {
    emit errorOccurred(tr("Cannot run the project: %1").arg(error));
    return false;
  }
  m_storePath = session.storePath();
  beginPass(&session);
  startQueue();
  return true;
}

bool QueueController::planThenRun(const ProjectSession& session, QWidget* parent) {
  if (!session.isOpen() || !PlanDialog::showBeforeRun() || m_queue->isBusy()) return runProject(session);
  PlanDialog dialog(session.dir(), /*withRun=*/true, parent);
  if (dialog.exec() != QDialog::Accepted) return false;
  // The dialog asked what to train when some runs are already trained: the queue asks nothing more.
  return runProject(session, dialog.onlyRunsToTrain() ? RepeatChoice::OnlyNew : RepeatChoice::All);
}

void QueueController::showPlan(const ProjectSession& session, QWidget* parent) {
  if (!session.isOpen()) {
    emit errorOccurred(tr("Open a project first (File > Open project)."));
    return;
  }
  auto* dialog = new PlanDialog(session.dir(), /*withRun=*/false, parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
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
  beginPass(nullptr);
  startQueue();
  return true;
}

bool QueueController::evaluateRun(const QString& storePath, qint64 runId) {
  if (m_queue->isBusy()) {
    emit errorOccurred(tr("Wait for the run queue to finish (or cancel it) before evaluating a run."));
    return false;
  }
  m_queue->enqueue({QueuedRun::evaluationOf(storePath, runId)});
  beginPass(nullptr);
  m_status->setText(tr("Evaluating run %1 from its last checkpoint (the same plan as its final evaluation)").arg(runId));
  m_progress->setRange(0, 0);
  startQueue();
  return true;
}

bool QueueController::runSearch(const ProjectSession& session, int jobs) {
  if (!session.isOpen()) {
    emit errorOccurred(tr("Open a project first (File > Open project)."));
    return false;
  }
  if (m_queue->isBusy()) {
    emit errorOccurred(tr("Wait for the run queue to finish (or cancel it) before starting a search."));
    return false;
  }
  m_storePath = session.storePath();
  m_queue->enqueue({QueuedRun::searchOf(session.dir(), jobs)});
  beginPass(nullptr);
  m_status->setText(tr("Search: reading the store (finished rung runs are reused, interrupted ones resumed)"));
  m_progress->setRange(0, 0);
  startQueue();
  return true;
}

void QueueController::connectSearch() {
  connect(m_queue, &RunQueue::searchRunStarted, this,
          [this](const QString&, const QString& job, const QString& label, int index, int planned) {
            m_monitor->beginLive(tr("search %1 (%2)").arg(job, label));
            m_searchIndex = index;
            m_searchPlanned = planned;
            m_searchRun = tr("%1 (%2)").arg(job, label);
            m_progress->setRange(0, std::max(1, planned));
            m_progress->setValue(std::max(0, index - 1));  // the runs done; the text names the one that trains
            m_progress->setFormat(tr("search: rung run %1 of %m").arg(index));
            m_status->setText(tr("Search: rung run %1 of %2 (so far planned): %3, %4").arg(index).arg(planned).arg(job, label));
            emit storeChanged(true);
            emit stateChanged();
          });
  connect(m_queue, &RunQueue::searchUpdated, this, [this](const search_runner::SearchSummary&) { emit storeChanged(true); });
  connect(m_queue, &RunQueue::searchEnded, this,
          [this](const QString& status, const QString& message, const search_runner::SearchSummary&) {
            m_monitor->endLive(status, message);
            const QString text = tr("Search %1: %2").arg(status, message);
            m_status->setText(text);
            m_progress->setFormat("%p%");
            emit storeChanged(true);
            if (status == "failed") emit errorOccurred(tr("The search failed: %1").arg(message));
            emit stateChanged();
          });
}

// A new pass: empty measurements (the planned steps are the engine queue's, with the training
// overrides applied when the items were queued: RunQueue::position().pendingSteps).
void QueueController::beginPass(const ProjectSession*) {
  if (m_queue->isBusy()) return;  // items added to a running pass keep its figures
  m_passClock.start();
  m_cancelled = false;
  m_runsFinished = m_runsNotFinished = m_runsCancelled = m_runsDropped = 0;
  m_profileCancelled = false;
  m_profileOutcome.clear();
  m_stepsDone = 0;
  m_measuredWall = 0;
  m_measuredSteps = 0;
}

void QueueController::startQueue() {
  m_queue->setThreads(QSettings().value("engine/threads", 0).toInt());
  m_queue->setProcesses(ProcessesSetting::saved());
  m_queue->setJobs(ProcessesSetting::savedJobs());
  m_queue->start();
  emit stateChanged();
}

void QueueController::pauseOrResume() {
  if (!m_queue->isBusy()) return;
  if (m_queue->isPaused()) {
    m_queue->resume();
    // The pause is not training time: the current run's rate is measured again from here,
    // with what was measured before the pause kept for the queue's rate.
    if (m_firstStep >= 0 && m_lastStep > m_firstStep) {
      m_measuredWall += m_lastWall - m_firstWall;
      m_measuredSteps += m_lastStep - m_firstStep;
    }
    m_firstStep = -1;
    emit message(tr("Resumed"), 3000);
  } else {
    m_queue->pause();
    showPaused();
  }
  emit stateChanged();
}

// Stays until Resume: the step line (and its ETA) would otherwise come back with the events of
// the step that was running when Pause was pressed.
void QueueController::showPaused() {
  if (m_queue->isSideBySide()) {
    QStringList live;
    for (const auto& [name, x] : m_sideRuns) live << tr("%1 at step %2").arg(name).arg(x.last);
    m_status->setText(tr("Paused: %1 (Run > Resume continues them; nothing trains meanwhile)")
                          .arg(live.isEmpty() ? tr("the runs side by side") : live.join(", ")));
    return;
  }
  const QString what = m_queue->isProfiling() ? tr("the efficiency profile") : m_queue->currentRun();
  m_status->setText(m_lastStep > 0 ? tr("Paused: %1 at step %2 (Run > Resume continues it; nothing trains meanwhile)")
                                         .arg(what)
                                         .arg(m_lastStep)
                                   : tr("Paused: %1, after its current step (Run > Resume continues it)").arg(what));
}

void QueueController::cancelAll() {
  if (!m_queue->isBusy()) return;
  m_cancelled = true;
  const QStringList dropped = m_queue->position().next;  // before the queue forgets them
  m_runsDropped += static_cast<int>(m_queue->position().nextRuns.size());
  m_queue->cancelAll();
  const QString droppedText = dropped.isEmpty() ? tr("nothing else was queued")
                                                : tr("dropped from the queue: %1").arg(dropped.join(", "));
  m_monitor->setEndNote(droppedText);
  if (m_queue->isSideBySide()) {
    m_status->setText(tr("Cancelling %1: each writes a checkpoint and stops; %2")
                          .arg(m_queue->liveRuns().join(", "), droppedText));
    return;
  }
  m_status->setText(tr("Cancelling %1: it writes a checkpoint and stops; %2")
                        .arg(m_queue->isProfiling() ? tr("the efficiency profile") : m_queue->currentRun(), droppedText));
}

void QueueController::onSteps(const QString& run, qint64 step, qint64 total, double wallS, double tokensPerS) {
  if (m_queue->isPaused()) {  // the last step before the pause took effect
    m_lastStep = step;
    m_lastWall = wallS;
    showPaused();
    return;
  }
  if (m_firstStep < 0) {
    m_firstStep = step;
    m_firstWall = wallS;
  }
  m_lastStep = step;
  m_lastWall = wallS;
  if (m_queue->isSearching()) {  // the bar counts rung runs (searchRunStarted); the line says which
    m_status->setText(tr("Search: rung run %1 of %2 (so far planned): %3, step %4/%5, %6 tokens/s")
                          .arg(m_searchIndex)
                          .arg(m_searchPlanned)
                          .arg(run.isEmpty() ? m_searchRun : run)
                          .arg(step)
                          .arg(total)
                          .arg(std::lround(tokensPerS)));
    return;
  }
  const QueuePosition pos = m_queue->position();
  const qint64 pendingSteps = pos.pendingSteps;
  const qint64 measured = m_lastStep - m_firstStep;
  const double currentRate = measured > 0 ? (m_lastWall - m_firstWall) / static_cast<double>(measured) : -1;
  const qint64 allSteps = m_measuredSteps + std::max<qint64>(0, measured);
  const double queueRate = allSteps > 0 ? (m_measuredWall + std::max(0.0, m_lastWall - m_firstWall)) / allSteps : -1;
  const double eta = queue::queue_eta_seconds(currentRate, total - step, queueRate, pendingSteps);
  QString etaText = eta >= 0 ? tr("queue ETA %1").arg(formatEta(eta)) : tr("queue ETA: measuring");
  if (pos.profileNext) etaText += tr(" + the profile");
  // A data-parallel run says its world size: "2 processes (gloo)" (the connected group's).
  const QString world = m_queue->currentWorldSize() > 1
                            ? tr(", %1 processes (%2)").arg(m_queue->currentWorldSize()).arg(m_queue->currentBackend())
                            : QString();
  m_status->setText(tr("Run %1 of %2: %3, step %4/%5, %6 tokens/s%7 · %8 · %9")
                        .arg(pos.run)
                        .arg(pos.runs)
                        .arg(run)
                        .arg(step)
                        .arg(total)
                        .arg(std::lround(tokensPerS))
                        .arg(world, followsText(pos.next), etaText));
  // The bar covers every run of the pass.
  const qint64 passSteps = m_stepsDone + total + pendingSteps;
  m_progress->setRange(0, static_cast<int>(std::min<qint64>(passSteps, INT_MAX)));
  m_progress->setValue(static_cast<int>(std::min<qint64>(m_stepsDone + step, INT_MAX)));
  m_progress->setFormat(tr("run %1 of %2: %p%").arg(pos.run).arg(pos.runs));
}

void QueueController::onSideBySideSteps(const QString& run, const runtime::StepMetrics& s) {
  LiveRun& r = m_sideRuns[run];
  if (r.first < 0) {
    r.first = s.step;
    r.firstWall = s.wall_s;
  }
  r.last = s.step;
  r.lastWall = s.wall_s;
  r.total = s.total_steps;
  if (m_queue->isPaused()) {
    showPaused();
    return;
  }
  // Seconds per step of one run, from every run measured in this pass (the live ones included);
  // `jobs` of them step at once.
  double wall = m_measuredWall;
  qint64 steps = m_measuredSteps, liveDone = 0, liveLeft = 0, liveTotal = 0;
  QStringList live;
  for (const auto& [name, x] : m_sideRuns) {
    if (x.last > x.first && x.first >= 0) {
      wall += x.lastWall - x.firstWall;
      steps += x.last - x.first;
    }
    liveDone += x.last;
    liveTotal += x.total;
    liveLeft += std::max<qint64>(0, x.total - x.last);
    live << tr("%1 step %2/%3").arg(name).arg(x.last).arg(x.total);
  }
  const QueuePosition pos = m_queue->position();
  const double perStep = steps > 0 ? wall / static_cast<double>(steps) : -1;
  const int jobs = std::max(1, m_sideJobs);
  const double eta = perStep > 0 ? static_cast<double>(liveLeft + pos.pendingSteps) * perStep / jobs : -1;
  QString etaText = eta >= 0 ? tr("queue ETA %1").arg(formatEta(eta)) : tr("queue ETA: measuring");
  if (pos.profileNext) etaText += tr(" + the profile");
  m_status->setText(tr("Runs side by side (%1 at once), %2 of %3 started: %4 · %5 · %6")
                        .arg(jobs)
                        .arg(pos.run)
                        .arg(pos.runs)
                        .arg(live.join(", "), followsText(pos.next), etaText));
  const qint64 passSteps = m_stepsDone + liveTotal + pos.pendingSteps;
  m_progress->setRange(0, static_cast<int>(std::min<qint64>(passSteps, INT_MAX)));
  m_progress->setValue(static_cast<int>(std::min<qint64>(m_stepsDone + liveDone, INT_MAX)));
  m_progress->setFormat(tr("%1 of %2 runs started: %p%").arg(pos.run).arg(pos.runs));
}

void QueueController::connectTraining() {
  connect(m_queue, &RunQueue::sideBySideStarted, this, [this](const QString&, int jobs, int runs) {
    m_sideJobs = jobs;
    m_sideRuns.clear();
    m_monitor->beginSideBySide(jobs, runs);
    m_progress->setRange(0, 0);
    m_status->setText(tr("Runs side by side: %1 runs, %2 at once, each in its own pha process on its own threads; "
                         "starting")
                          .arg(runs)
                          .arg(jobs));
    emit message(QString(), 0);
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::sideBySideEnded, this, [this] {
    m_monitor->endLive();
    m_sideRuns.clear();
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::runStarted, this, [this](const QString&, const QString& run) {
    if (m_queue->isSideBySide()) {
      m_monitor->beginLiveRun(run);
      m_sideRuns[run] = LiveRun{};
      emit stateChanged();
      return;
    }
    m_monitor->beginLive(run);
    m_firstStep = -1;
    m_lastStep = 0;
    const QueuePosition pos = m_queue->position();
    m_progress->setRange(0, 0);
    const QString starting = m_queue->processes() > 1 ? tr("starting %1 processes").arg(m_queue->processes())
                                                      : tr("starting");
    m_status->setText(tr("Run %1 of %2: %3, %4 · %5").arg(pos.run).arg(pos.runs).arg(run, starting, followsText(pos.next)));
    emit message(QString(), 0);  // a transient message about the previous run must not cover this one
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::eventsArrived, this, [this](const EventBuffer::Batch& batch) {
    if (!batch.efficiency.empty()) {
      const QString line = m_efficiency->addEvents(batch.efficiency);
      if (m_queue->isPaused()) showPaused();  // the point in flight when Pause was pressed
      else if (!line.isEmpty()) m_status->setText(line);
      m_progress->setRange(0, std::max(1, m_efficiency->pointsExpected()));
      m_progress->setValue(m_efficiency->pointsDone());
    }
    if (m_queue->isProfiling()) return;  // the profile's events are efficiency points only
    m_monitor->addEvents(batch);
    if (!batch.run.empty()) {  // a run side by side
      if (!batch.steps.empty() && !m_cancelled) onSideBySideSteps(QString::fromStdString(batch.run), batch.steps.back());
    } else if (!batch.steps.empty() && !m_cancelled) {
      const auto& s = batch.steps.back();
      if (m_firstStep < 0) onSteps(m_queue->currentRun(), batch.steps.front().step, s.total_steps,
                                   batch.steps.front().wall_s, s.tokens_per_s);
      onSteps(m_queue->currentRun(), s.step, s.total_steps, s.wall_s, s.tokens_per_s);
    }
    for (const auto& log : batch.logs)
      if (log.level == runtime::LogEvent::Level::Error) emit message(QString::fromStdString(log.message), 10000);
    emit storeChanged(!batch.statuses.empty());
  });
  connect(m_queue, &RunQueue::runEnded, this,
          [this](const QString& run, qint64, const QString& status, const QString& reason) {
            onRunEnded(run, status, reason);
          });
  connect(m_queue, &RunQueue::queueFinished, this, &QueueController::onQueueFinished);
}

void QueueController::onRunEnded(const QString& run, const QString& status, const QString& reason) {
  if (m_monitor->isSideBySide()) {
    m_monitor->endLiveRun(run, status, reason);
    if (auto it = m_sideRuns.find(run); it != m_sideRuns.end()) {
      const LiveRun& x = it->second;
      if (x.first >= 0 && x.last > x.first) {
        m_measuredWall += x.lastWall - x.firstWall;
        m_measuredSteps += x.last - x.first;
      }
      m_stepsDone += x.last;
      m_sideRuns.erase(it);
    }
  } else {
    m_monitor->endLive(status, reason);
    if (m_firstStep >= 0 && m_lastStep > m_firstStep) {
      m_measuredWall += m_lastWall - m_firstWall;
      m_measuredSteps += m_lastStep - m_firstStep;
    }
    m_stepsDone += m_lastStep;
  }
  (status == "finished" ? m_runsFinished : m_runsNotFinished)++;
  if (status == "cancelled") ++m_runsCancelled;
  const QString text = tr("%1: %2%3").arg(run, status, reason.isEmpty() ? QString() : " - " + reason);
  // In the status line, not as a transient message: the next run's line replaces it at once.
  m_status->setText(text);
  emit storeChanged(true);
  if (status == "failed") emit errorOccurred(text);
  emit stateChanged();
}

// What the pass did, counted over every training run it held: "Queue cancelled after 8.5 s: 1
// of 6 runs finished, 1 cancelled, 4 not started". A Cancel that found nothing left to stop
// (the last run had finished) leaves a finished queue, and says so.
QString QueueController::passSummary() const {
  QStringList parts;
  const int ended = m_runsFinished + m_runsNotFinished;
  const int runs = ended + m_runsDropped;
  const int failed = m_runsNotFinished - m_runsCancelled;
  if (runs > 0) {
    QString line = m_runsFinished == runs ? (runs == 1 ? tr("1 run finished") : tr("%1 runs finished").arg(runs))
                                          : tr("%1 of %2 runs finished").arg(m_runsFinished).arg(runs);
    if (m_runsCancelled > 0) line += tr(", %1 cancelled").arg(m_runsCancelled);
    if (failed > 0) line += tr(", %1 failed or diverged").arg(failed);
    if (m_runsDropped > 0) line += tr(", %1 not started").arg(m_runsDropped);
    parts << line;
  }
  if (!m_profileOutcome.isEmpty()) parts << m_profileOutcome;
  const QString took = formatEta(m_passClock.isValid() ? m_passClock.elapsed() / 1000.0 : 0);
  const bool cancelTookEffect = m_runsCancelled > 0 || m_runsDropped > 0 || m_profileCancelled;
  QString head = m_cancelled && cancelTookEffect ? tr("Queue cancelled after %1").arg(took)
                                                 : tr("Queue finished in %1").arg(took);
  if (m_cancelled && !cancelTookEffect) parts << tr("Cancel came after the last run had ended");
  return parts.isEmpty() ? head : head + ": " + parts.join("; ");
}

void QueueController::onQueueFinished() {
  // The last run's step line (and its ETA) gives way to what the pass did. An evaluation keeps
  // its own line (it says the figures).
  if (m_runsFinished + m_runsNotFinished > 0 || !m_profileOutcome.isEmpty() || m_cancelled)
    m_status->setText(passSummary());
  m_progress->setFormat("%p%");
  m_efficiency->load(m_storePath);
  emit stateChanged();
  if (m_runsFinished > 0) emit queueEnded();
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
    m_progress->setFormat(tr("profile: %v/%m points"));
    m_status->setText(
        tr("Measuring efficiency: %1 points (%2), each in a fresh pha process").arg(points).arg(models.join(", ")));
    emit message(QString(), 0);
    emit profileStarted();
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::tuningFollowupsQueued, this, [this](const QStringList& runs, const QStringList& notes) {
    QString text;
    if (!runs.isEmpty())
      text = tr("Tuning: %n follow-up run(s) queued from the results (an edge extended or a choice confirmed): %1", "",
                static_cast<int>(runs.size()))
                 .arg(runs.join(", "));
    if (!notes.isEmpty()) text += (text.isEmpty() ? QString() : QStringLiteral("; ")) + notes.join("; ");
    emit message(text, 15000);
    emit stateChanged();
  });
  connect(m_queue, &RunQueue::profileEnded, this, [this](const QString& status, const QString& message, int stored) {
    m_efficiency->endProfile(m_storePath);
    emit storeChanged(true);
    const QString text = tr("Efficiency profile %1: %2; %3 profile run(s) recorded").arg(status, message).arg(stored);
    m_profileOutcome = text.left(1).toLower() + text.mid(1);
    m_profileCancelled = m_profileCancelled || status == "cancelled";
    m_status->setText(text);
    if (status == "failed")
      emit errorOccurred(tr("The efficiency profile failed: %1").arg(message));
    else if (status == "skipped")
      emit this->message(text, 10000);
    emit stateChanged();
  });
}

}  // namespace pha::gui
