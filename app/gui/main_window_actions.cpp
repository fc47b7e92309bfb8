// MainWindow: project, run-queue and selection actions (the window's behaviour; layout and
// menus are in main_window.cpp).
#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <cmath>

#include <QUndoStack>

#include "config_editor.h"
#include "generate_panel.h"
#include "main_window.h"
#include "project_session.h"
#include "run_monitor.h"
#include "run_queue.h"
#include "runs_model.h"
#include "store/store.h"

namespace pha::gui {

bool MainWindow::openProject(const QString& path) {
  if (m_queue->isBusy()) {
    showError(tr("Finish or cancel the running queue before opening another project."));
    return false;
  }
  if (!m_session->open(path)) {
    showError(tr("Cannot open project %1:\n%2").arg(path, m_session->errorText()));
    return false;
  }
  setWindowTitle(tr("PHA Workbench - %1").arg(m_session->name()));
  m_docks.projectLabel->setText(tr("<b>%1</b><br>%2<br>runs to make: %3")
                                    .arg(m_session->name().toHtmlEscaped(), m_session->dir().toHtmlEscaped(),
                                         m_session->runNames().join(", ").toHtmlEscaped()));
  reloadRuns();
  loadEfficiency();
  updateActions();
  if (!m_session->runNames().isEmpty()) {
    const nlohmann::json cfg = m_session->runConfig(m_session->runNames().first());
    if (cfg.contains("model")) m_config->setConfigJson(cfg["model"]);
    if (cfg.contains("training") && m_config->hasTrainingSection()) m_config->setTrainingJson(cfg["training"]);
    m_config->undoStack()->clear();
  }
  statusBar()->showMessage(tr("Opened %1").arg(m_session->dir()), 5000);
  return true;
}

bool MainWindow::openDefaultProject() {
  QString error;
  const QString path = m_session->defaultProjectPath(&error);
  if (path.isEmpty()) {
    showError(tr("Cannot create the quickstart project: %1").arg(error));
    return false;
  }
  return openProject(path);
}

void MainWindow::reloadRuns() {
  if (!m_session->isOpen()) return;
  const qint64 selected = m_monitor->shownRunId();
  if (!m_runs->reload(m_session->storePath())) {
    showError(tr("Cannot read the run store: %1").arg(m_runs->lastError()));
    return;
  }
  m_lastReloadMs = QDateTime::currentMSecsSinceEpoch();
  const int row = m_runs->rowOfRun(selected);
  if (row >= 0 && !m_monitor->isLive()) {
    QSignalBlocker block(m_docks.runsTable->selectionModel());
    m_docks.runsTable->selectRow(m_runsProxy->mapFromSource(m_runs->index(row, 0)).row());
  }
}

void MainWindow::runProject() {
  if (!m_session->isOpen()) {
    showError(tr("Open a project first (File > Open project)."));
    return;
  }
  // The engine's queue: the runs, then the profile when project.json asks for it.
  QString error;
  if (!m_queue->enqueueProject(m_session->dir(), &error)) {
    showError(tr("Cannot run the project: %1").arg(error));
    return;
  }
  m_queue->setThreads(QSettings().value("engine/threads", 0).toInt());
  m_queue->start();
  updateActions();
}

void MainWindow::pauseOrResume() {
  if (!m_queue->isBusy()) return;
  if (m_queue->isPaused()) {
    m_queue->resume();
    statusBar()->showMessage(tr("Resumed"), 3000);
  } else {
    m_queue->pause();
    statusBar()->showMessage(tr("Paused after the current step"), 3000);
  }
  updateActions();
}

void MainWindow::cancelRuns() {
  if (!m_queue->isBusy()) return;
  m_queue->cancelAll();
  statusBar()->showMessage(tr("Cancelling: the run writes a checkpoint and stops"), 5000);
}

void MainWindow::updateActions() {
  const bool busy = m_queue->isBusy();
  m_runAction->setEnabled(m_session->isOpen() && !busy);
  m_measureAction->setEnabled(m_session->isOpen() && !busy);
  m_pauseAction->setEnabled(busy);
  m_pauseAction->setText(m_queue->isPaused() ? tr("Res&ume") : tr("&Pause"));
  m_cancelAction->setEnabled(busy);
  m_progress->setVisible(busy);
}

void MainWindow::connectQueue() {
  connect(m_queue, &RunQueue::runStarted, this, [this](const QString&, const QString& run) {
    m_monitor->beginLive(run);
    m_progress->setRange(0, 0);
    m_statusLabel->setText(tr("Training %1 (%2 more queued)").arg(run).arg(m_queue->pendingCount()));
    updateActions();
  });
  connect(m_queue, &RunQueue::eventsArrived, this, [this](const EventBuffer::Batch& batch) {
    if (!batch.efficiency.empty()) onEfficiencyEvents(batch.efficiency);
    if (m_queue->isProfiling()) return;  // the profile's events are efficiency points only
    m_monitor->addEvents(batch);
    if (!batch.steps.empty()) {
      const auto& s = batch.steps.back();
      m_progress->setRange(0, static_cast<int>(s.total_steps));
      m_progress->setValue(static_cast<int>(s.step));
      m_statusLabel->setText(tr("Training %1: step %2/%3, %4 tokens/s%5")
                                 .arg(m_queue->currentRun())
                                 .arg(s.step)
                                 .arg(s.total_steps)
                                 .arg(std::lround(s.tokens_per_s))
                                 .arg(s.eta_s >= 0 ? tr(", ETA %1 s").arg(std::lround(s.eta_s)) : QString()));
    }
    for (const auto& log : batch.logs)
      if (log.level == runtime::LogEvent::Level::Error) statusBar()->showMessage(QString::fromStdString(log.message), 10000);
    // The run browser follows the store at most every 2 s while training.
    if (QDateTime::currentMSecsSinceEpoch() - m_lastReloadMs > 2000 || !batch.statuses.empty()) reloadRuns();
  });
  connect(m_queue, &RunQueue::runEnded, this, [this](const QString& run, qint64, const QString& status,
                                                     const QString& reason) {
    m_monitor->endLive();
    reloadRuns();
    const QString text = tr("%1: %2%3").arg(run, status, reason.isEmpty() ? QString() : " - " + reason);
    if (status == "failed")
      showError(text);
    else
      statusBar()->showMessage(text, 10000);
    updateActions();
  });
  connect(m_queue, &RunQueue::queueFinished, this, [this] {
    m_statusLabel->setText(tr("Queue finished"));
    loadEfficiency();
    updateActions();
  });
}

void MainWindow::onRunSelected() {
  if (m_monitor->isLive()) return;  // the live run keeps the plots while training
  const QModelIndexList rows = m_docks.runsTable->selectionModel()->selectedRows();
  if (rows.size() != 1) return;
  const qint64 id = m_runsProxy->data(rows.first(), RunsModel::RunIdRole).toLongLong();
  if (!m_monitor->showStoredRun(m_runs->storePath(), id)) showError(m_monitor->errorText());
  showConfigOf(m_runs->storePath(), id);
  const int row = m_runs->rowOfRun(id);
  if (row >= 0) m_generate->setRun(m_runs->storePath(), id, QString::fromStdString(m_runs->entry(row)->run.name));
}

void MainWindow::compareSelected() {
  const QModelIndexList rows = m_docks.runsTable->selectionModel()->selectedRows();
  if (rows.size() < 2) {
    showError(tr("Select two or more runs to compare (Ctrl- or Shift-click in the run table)."));
    return;
  }
  QList<qint64> ids;
  for (const QModelIndex& r : rows) ids << m_runsProxy->data(r, RunsModel::RunIdRole).toLongLong();
  emit compareRequested(m_runs->storePath(), ids);
  m_docks.compareDock->show();
  m_docks.compareDock->raise();
}

bool MainWindow::selectRunByName(const QString& name) {
  int best = -1;
  for (int r = 0; r < m_runs->rowCount(); ++r)
    if (QString::fromStdString(m_runs->entry(r)->run.name) == name &&
        (best < 0 || m_runs->entry(r)->run.id > m_runs->entry(best)->run.id))
      best = r;
  if (best < 0) {
    showError(tr("No run named %1 in this project.").arg(name));
    return false;
  }
  m_docks.runsTable->selectRow(m_runsProxy->mapFromSource(m_runs->index(best, 0)).row());
  return true;
}

void MainWindow::compareFinishedRuns() {
  QList<qint64> ids;
  for (int r = 0; r < m_runs->rowCount(); ++r) {
    const auto& run = m_runs->entry(r)->run;
    // Profile runs hold efficiency rows only (the Efficiency dock shows them), no curves.
    if (run.status == store::RunStatus::Finished && run.kind == store::RunKind::Train) ids << run.id;
  }
  if (ids.size() < 2) {
    showError(tr("Compare needs two or more finished runs; this project has %1.").arg(ids.size()));
    return;
  }
  emit compareRequested(m_runs->storePath(), ids);
  m_docks.compareDock->show();
  m_docks.compareDock->raise();
}

void MainWindow::newProjectFromTemplate() {
  const QStringList names = ProjectSession::templateNames();
  if (names.isEmpty()) {
    showError(tr("No project templates found in %1").arg(ProjectSession::templatesDir()));
    return;
  }
  bool ok = false;
  const QString name = QInputDialog::getItem(this, tr("New project"), tr("Template:"), names, 0, false, &ok);
  if (!ok) return;
  const QString dest = QFileDialog::getSaveFileName(this, tr("New project folder"), ProjectSession::workspaceDir() + "/" + name);
  if (dest.isEmpty()) return;
  QString error;
  const QString dir = m_session->createFromTemplate(name, dest, &error);
  if (dir.isEmpty())
    showError(error);
  else
    openProject(dir);
}

void MainWindow::openProjectDialog() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Open project folder"), ProjectSession::workspaceDir());
  if (!dir.isEmpty()) openProject(dir);
}

void MainWindow::refreshRecentMenu() {
  m_recentMenu->clear();
  for (const QString& dir : m_session->recentProjects())
    m_recentMenu->addAction(dir, this, [this, dir] { openProject(dir); });
  if (m_recentMenu->isEmpty()) m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    const QFileInfo info(url.toLocalFile());
    if (info.isDir() || info.fileName() == "project.json") {
      openProject(info.isDir() ? info.absoluteFilePath() : info.absolutePath());
    } else if (info.suffix().compare("txt", Qt::CaseInsensitive) == 0) {
      QString error;
      const QString dir = m_session->createFromTextFile(info.absoluteFilePath(), &error);
      if (dir.isEmpty())
        showError(tr("Cannot make a project from %1: %2").arg(info.fileName(), error));
      else
        openProject(dir);
    } else {
      showError(tr("Drop a project folder, a project.json or a .txt corpus (got %1).").arg(info.fileName()));
    }
    event->acceptProposedAction();
    return;
  }
}

}  // namespace pha::gui
