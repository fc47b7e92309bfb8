// MainWindow: the efficiency profile (Run > Measure efficiency, or after the run queue when the
// project has a "profile" section) and the Efficiency dock. The sweep runs in the queue's
// worker thread; its points arrive as events, appear in the dock as they are measured, and are
// read back from the store (its runs of kind profile) when it ends.
#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <algorithm>
#include <cmath>
#include <set>

#include "main_window.h"
#include "project_session.h"
#include "run_queue.h"
#include "runtime/profile_store.h"
#include "store/store.h"

namespace pha::gui {

void MainWindow::measureEfficiency() {
  if (!m_session->isOpen()) {
    showError(tr("Open a project first (File > Open project)."));
    return;
  }
  if (m_queue->isBusy()) {
    showError(tr("Wait for the run queue to finish (or cancel it) before measuring efficiency."));
    return;
  }
  m_queue->setThreads(QSettings().value("engine/threads", 0).toInt());
  m_queue->enqueue({QueuedRun::profileOf(m_session->dir())});
  m_queue->start();
  updateActions();
}

void MainWindow::connectProfiler() {
  connect(m_queue, &RunQueue::profileStarted, this, [this](const QString&, int points, const QStringList& models) {
    m_profilePoints = points;
    m_profileDone = 0;
    m_liveEfficiency.clear();
    m_progress->setRange(0, std::max(1, points));
    m_progress->setValue(0);
    m_statusLabel->setText(tr("Measuring efficiency: %1 points (%2), each in a fresh pha process")
                               .arg(points)
                               .arg(models.join(", ")));
    m_docks.efficiencyDock->show();
    m_docks.efficiencyDock->raise();
    updateActions();
  });
  connect(m_queue, &RunQueue::profileEnded, this, [this](const QString& status, const QString& message, int stored) {
    m_liveEfficiency.clear();
    loadEfficiency();
    reloadRuns();
    const QString text = tr("Efficiency profile %1: %2; %3 profile run(s) recorded").arg(status, message).arg(stored);
    m_statusLabel->setText(text);
    if (status == "failed")
      showError(tr("The efficiency profile failed: %1").arg(message));
    else
      statusBar()->showMessage(text, 10000);
    updateActions();
  });
}

void MainWindow::onEfficiencyEvents(const std::vector<runtime::EfficiencyEvent>& events) {
  for (const auto& e : events) {
    ++m_profileDone;
    const QString model = QString::fromStdString(e.variant);
    if (e.tokens_per_s > 0) {
      store::PerfRow row;
      row.seq_len = e.seq_len;
      row.batch = e.batch;
      row.tokens_per_s = e.tokens_per_s;
      row.peak_bytes = e.peak_bytes;
      row.phase = e.phase;
      row.method = e.method;
      m_liveEfficiency[QString::fromStdString(runtime::profile_run_name(e.variant))].push_back(row);
      m_statusLabel->setText(tr("Measuring efficiency %1/%2: %3, T = %4, %5: %6 tokens/s, peak %7 MB")
                                 .arg(m_profileDone)
                                 .arg(m_profilePoints)
                                 .arg(model)
                                 .arg(e.seq_len)
                                 .arg(QString::fromStdString(e.phase))
                                 .arg(std::lround(e.tokens_per_s))
                                 .arg(std::lround(e.peak_bytes / 1e6)));
    } else {
      statusBar()->showMessage(tr("Efficiency point %1, T = %2, %3 failed: %4")
                                   .arg(model)
                                   .arg(e.seq_len)
                                   .arg(QString::fromStdString(e.phase), QString::fromStdString(e.method)),
                               10000);
    }
  }
  m_progress->setRange(0, std::max(1, m_profilePoints));
  m_progress->setValue(m_profileDone);
  showEfficiency();
}

void MainWindow::loadEfficiency() {
  m_storedEfficiency.clear();
  if (!m_session->isOpen()) {
    showEfficiency();
    return;
  }
  try {
    auto s = store::Store::open(m_session->storePath().toStdString());
    // Newest first, so that a re-measured model replaces its older profile.
    auto list = s.list_runs();
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.run.id > b.run.id; });
    std::set<std::string> seen;
    for (const auto& e : list) {
      auto rows = s.perf(e.run.id);
      if (rows.empty() || !seen.insert(e.run.name).second) continue;
      m_storedEfficiency.push_back({QString::fromStdString(e.run.name), std::move(rows)});
    }
    std::reverse(m_storedEfficiency.begin(), m_storedEfficiency.end());  // oldest first: stable colours
  } catch (const std::exception& e) {
    showError(QString::fromUtf8(e.what()));
  }
  showEfficiency();
}

void MainWindow::showEfficiency() {
  std::vector<EfficiencySeries> series;
  for (const auto& s : m_storedEfficiency)
    if (!m_liveEfficiency.count(s.label)) series.push_back(s);
  for (const auto& [label, rows] : m_liveEfficiency) series.push_back({label, rows});
  m_docks.efficiencyPanel->setSeries(std::move(series));
}

}  // namespace pha::gui
