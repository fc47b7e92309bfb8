#include "gui/run_views.h"

#include <QDockWidget>
#include <QHash>
#include <QItemSelectionModel>
#include <QMainWindow>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QUndoStack>

#include <nlohmann/json.hpp>
#include <algorithm>

#include "gui/compare/compare_widget.h"
#include "gui/compare/parallel_coords_tab.h"
#include "gui/config/config_editor.h"
#include "gui/generate/generate_panel.h"
#include "gui/inference/inference_tab.h"
#include "gui/lens/lens_tokens_tab.h"
#include "gui/lens/lens_view.h"
#include "gui/monitor/efficiency_controller.h"
#include "gui/monitor/run_monitor.h"
#include "gui/project/project_session.h"
#include "gui/project/store_watcher.h"
#include "gui/queue/queue_controller.h"
#include "gui/report/report_view.h"
#include "gui/runs/run_actions.h"
#include "gui/runs/run_browser.h"
#include "gui/runs/run_notes_panel.h"
#include "gui/runs/runs_model.h"
#include "gui/search/search_view.h"
#include "analysis/report.h"
#include "store/store.h"
#include "widgets/lens_rows.h"
#include "widgets/mixer_panel.h"
#include "widgets/window_store.h"

namespace pha::gui {

RunViews::RunViews(const Views& v, std::function<bool(const QString&, const QString&, bool)> ask, QObject* parent)
    : QObject(parent),
      m_window(v.window),
      m_docks(*v.docks),
      m_session(v.session),
      m_browser(v.browser),
      m_runActions(v.runActions),
      m_watcher(v.watcher),
      m_monitor(v.monitor),
      m_efficiency(v.efficiency),
      m_queue(v.queue),
      m_config(v.config),
      m_compare(v.compare),
      m_generate(v.generate),
      m_report(v.report),
      m_search(v.search),
      m_lens(v.lens),
      m_ask(std::move(ask)) {}

RunsModel* RunViews::runsModel() const { return m_browser->model(); }

void RunViews::reloadRuns() {
  if (!m_session->isOpen()) return;
  if (m_session->isStoreDamaged()) {  // never read (the banner says why)
    m_browser->clear();
    return;
  }
  // While a run trains, the live plots keep it: do not re-select a stored run under them.
  m_browser->reload(m_session->storePath(), m_monitor->isLive() ? 0 : m_monitor->shownRunId());
  followSelection();  // a run selected by the reload (the one a queue just finished) is shown everywhere
}

void RunViews::onRunChosen(const QString& storePath, qint64 runId, const QString& name) {
  showRun(storePath, runId, name, /*userChose=*/true);
}

void RunViews::showRun(const QString& storePath, qint64 runId, const QString& name, bool userChose) {
  m_lens->setRun(storePath, runId, name, m_browser->selectedRunIds());  // a trained run, also while another trains
  if (m_monitor->isLive()) return;  // the live run keeps the plots while training
  if (m_monitor->shownRunId() != runId || userChose) {
    if (!m_monitor->showStoredRun(storePath, runId)) showError(m_monitor->errorText());
    m_docks.mixerPanel->setEffectiveShares(widgets::readEffectiveShares(storePath, runId));
  }
  if (userChose && m_monitor->shownRunIsProfile()) {  // its figures are the Efficiency dock's
    m_docks.efficiencyDock->show();
    m_docks.efficiencyDock->raise();
    m_docks.efficiencyTabs->setCurrentWidget(m_monitor->shownRunIsInference()
                                                 ? static_cast<QWidget*>(m_docks.inferenceTab)
                                                 : static_cast<QWidget*>(m_docks.efficiencyPanel));
  }
  showConfigOf(storePath, runId, userChose);
  m_generate->setRun(storePath, runId, name);
}

void RunViews::followSelection() {
  if (!m_session->isOpen() || m_monitor->isLive()) return;
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.size() != 1) return;
  const qint64 id = ids.first();
  if (m_lens->runId() == id && m_configRunId == id && m_monitor->shownRunId() == id && m_generate->runId() == id) return;
  const int row = runsModel()->rowOfRun(id);
  if (row < 0) return;
  showRun(m_browser->storePath(), id, QString::fromStdString(runsModel()->entry(row)->run.name), /*userChose=*/false);
}

void RunViews::showProject() {
  // Every view shows the project now open, or says it is empty: nothing of the previous one stays.
  m_compare->clear();
  m_monitor->clear(tr("Pick a run in the run table to see its curves and mixer weights."));
  m_generate->clearRun();
  m_lens->clearRun();
  m_watcher->setStore(m_session->isStoreDamaged() ? QString() : m_session->storePath());
  if (m_session->isStoreDamaged()) {
    // Said, not shown: what a damaged file reads may be wrong, and nothing may write to it.
    m_browser->clear();
    m_efficiency->load(QString());
    m_docks.inferenceTab->setProject(m_session->dir(), m_session->name(), QString());
    m_report->setUnavailable(m_session->dir(), tr("the run store is damaged (the banner in the Project dock says how "
                                                  "to recover it)."));
  } else {
    reloadRuns();
    m_efficiency->load(m_session->storePath());
    m_docks.inferenceTab->setProject(m_session->dir(), m_session->name(), m_session->storePath());
    m_report->setProject(m_session->dir());
  }
  if (!m_session->runNames().isEmpty()) {
    const nlohmann::json cfg = m_session->runConfig(m_session->runNames().first());
    if (cfg.contains("model")) m_config->setConfigJson(cfg["model"]);
    if (cfg.contains("training")) m_config->setTrainingJson(cfg["training"]);
    m_config->undoStack()->clear();
    m_configRunId = 0;
  }
}

void RunViews::showInCompare(const QString& storePath, const QList<qint64>& runIds) {
  QList<RunRef> refs;
  for (qint64 id : runIds) refs.push_back(RunRef{storePath, id});
  m_compare->setRuns(refs);
}

void RunViews::connectViews() {
  connect(m_queue, &QueueController::profileStarted, this, [this] {
    m_docks.efficiencyDock->show();
    m_docks.efficiencyDock->raise();
    m_docks.efficiencyTabs->setCurrentWidget(m_docks.efficiencyPanel);
  });
  // Recorded effective weights reach the Mixer heatmap's effective view of the same run at once.
  connect(m_lens, &LensView::recorded, this, [this](const QString& storePath, qint64 runId) {
    if (!m_monitor->isLive() && m_monitor->shownRunId() == runId)
      m_docks.mixerPanel->setEffectiveShares(widgets::readEffectiveShares(storePath, runId));
    showMessage(m_lens->status(), 8000);
  });
  // A paused run reads "paused" in the run table until it resumes (the store says running).
  connect(m_queue, &QueueController::stateChanged, this, [this] {
    runsModel()->setPausedRun(m_queue->isPaused() && m_monitor->isLive() ? m_monitor->shownRunId() : 0);
  });
  connect(m_queue, &QueueController::storeChanged, this, [this](bool now) {
    // The run browser follows the store at most every 2 s while training.
    if (now) {
      reloadRuns();
      m_report->refresh();  // a run started or ended, or an evaluation was recorded
    }
    else if (m_session->isOpen())
      m_browser->reloadThrottled(m_session->storePath(), m_monitor->shownRunId(), 2000);
  });
  // When a pass ends, the project's claims are answered: the Report dock comes to the front with
  // their verdicts (the same report `pha report` prints), and the status bar says them in short.
  connect(m_queue, &QueueController::queueEnded, this, [this] {
    followSelection();
    m_reportAfterQueue = true;
    m_report->refresh();
  });
  connect(m_report, &ReportView::reportReady, this, [this] {
    if (!m_reportAfterQueue || m_report->isBuilding()) return;
    m_reportAfterQueue = false;
    const analysis::Report* r = m_report->report();
    if (!r || r->claims.empty()) return;
    m_docks.reportDock->show();
    m_docks.reportDock->raise();
    growBottomDock(m_docks.reportDock);
    QStringList verdicts;
    for (const auto& c : r->claims)
      verdicts << QString::fromStdString((c.claim.title.empty() ? c.statement : c.claim.title) + ": " + c.summary);
    showMessage(tr("Claims: %1 (Report dock)").arg(verdicts.join(QStringLiteral("; "))), 30000);
  });
  connect(m_browser, &RunBrowser::runChosen, this, &RunViews::onRunChosen);
  connect(m_docks.compareButton, &QPushButton::clicked, this, &RunViews::compareSelected);
  connect(m_report, &ReportView::evidenceRequested, this, &RunViews::showEvidence);
  connect(m_runActions, &RunActions::errorOccurred, this, &RunViews::errorOccurred);
  connect(m_runActions, &RunActions::message, this, &RunViews::message);
  connect(m_runActions, &RunActions::runChanged, this, &RunViews::refreshNotesPanel);
  // The window's own writes reach every view at once through the one path `pha`'s take.
  connect(m_runActions, &RunActions::runChanged, m_watcher, &StoreWatcher::checkNow);
  connect(m_runActions, &RunActions::hiddenRunsChanged, m_watcher, &StoreWatcher::setHiddenRuns);
  connect(m_watcher, &StoreWatcher::runsChanged, this, &RunViews::onStoreChanged);
  connect(m_browser, &RunBrowser::reloaded, this, &RunViews::refreshNotesPanel);
  connect(m_docks.runsTable->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunViews::refreshNotesPanel);
  connect(m_docks.runNotes, &RunNotesPanel::saveRequested, m_runActions, &RunActions::setNotes);
  connect(m_docks.runNotes, &RunNotesPanel::editTagsRequested, m_runActions, &RunActions::editTagsOfSelection);
  // Brushing the Compare dock's parallel coordinates selects those runs in the table.
  connect(m_compare->parallelTab(), &ParallelCoordsTab::runsBrushed, this, [this](const QList<RunRef>& runs) {
    QList<qint64> ids;
    for (const RunRef& r : runs)
      if (r.storePath == m_browser->storePath()) ids << r.runId;
    if (!ids.isEmpty()) m_browser->selectRuns(ids);
  });
}

void RunViews::refreshNotesPanel() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  const int row = ids.size() == 1 ? runsModel()->rowOfRun(ids.first()) : -1;
  if (row < 0) {
    m_docks.runNotes->clear();
    return;
  }
  const auto& run = runsModel()->entry(row)->run;
  m_docks.runNotes->setRun(run.id, QString::fromStdString(run.name), runsModel()->tagsOf(row),
                           QString::fromStdString(run.notes));
}

void RunViews::onStoreChanged(const QString& storePath, const StoreChange& change) {
  if (!m_session->isOpen() || storePath != m_session->storePath() || m_session->isStoreDamaged()) return;
  // The run table: renames, tags and notes in place; new, deleted and ended runs re-read.
  m_browser->applyStoreChange(storePath, change, m_monitor->isLive() ? 0 : m_monitor->shownRunId());
  // Compare: a deleted run leaves it; a renamed or newly evaluated one is read again.
  QList<RunRef> kept;
  bool touched = false;
  for (const RunRef& r : m_compare->runs()) {
    if (r.storePath == storePath && change.removed.contains(r.runId)) continue;
    touched = touched || (r.storePath == storePath && change.changed.contains(r.runId));
    kept << r;
  }
  if (kept.size() != m_compare->runs().size()) {
    if (kept.isEmpty())
      m_compare->clear();
    else
      m_compare->setRuns(kept);
  } else if (touched) {
    m_compare->reload();
  }
  if (change.removed.contains(m_lens->runId())) m_lens->clearRun(tr("Run %1 was deleted.").arg(m_lens->runId()));
  // Live curves: the stored run shown is gone, or has a new name.
  const qint64 shown = m_monitor->shownRunId();
  if (!m_monitor->isLive() && shown > 0) {
    if (change.removed.contains(shown)) {
      m_monitor->clear(tr("Run %1 was deleted. Pick a run in the run table to see its curves and mixer weights.")
                           .arg(shown));
      m_generate->clearRun();
    } else if (change.changed.contains(shown)) {
      m_monitor->showStoredRun(storePath, shown);
    }
  }
  refreshNotesPanel();
  m_report->refresh();
  m_search->refreshStatus();  // not the Section form: its unsaved edits stay
  // Efficiency: a profile or inference run written by `pha bench` (or deleted) shows at once.
  if (!change.added.isEmpty() || !change.removed.isEmpty()) m_efficiency->load(storePath);
  m_docks.inferenceTab->reload();
}

void RunViews::commitDeletes() {
  for (const QString& p : m_runActions->commitDeletes()) qWarning("pha-workbench: delete: %s", qPrintable(p));
}

void RunViews::compareSelected() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.size() < 2) {
    showError(tr("Select two or more runs to compare (Ctrl- or Shift-click in the run table)."));
    return;
  }
  showCompare(ids);
}

void RunViews::compareFinishedRuns() {
  const QList<qint64> ids = m_browser->finishedTrainingRunIds();
  if (ids.size() < 2) {
    showError(tr("Compare needs two or more finished runs; this project has %1.").arg(ids.size()));
    return;
  }
  showCompare(ids);
}

void RunViews::showCompare(const QList<qint64>& ids) {
  emit compareRequested(m_browser->storePath(), ids);
  m_docks.compareDock->show();
  m_docks.compareDock->raise();
  growBottomDock(m_docks.compareDock);
}

void RunViews::growBottomDock(QDockWidget* dock) {
  // What the user looks at now (Compare, or the Lens opened from a verdict): a dock of the bottom
  // area shorter than half the window (the default gives Live curves the upper half) grows to 58%
  // of it, so nine runs' legend, labels and heatmaps, or the Lens's tokens and bins, have room; a
  // dock the user made taller or floated is left as it is.
  QMainWindow* w = m_window;
  if (!dock->isFloating() && dock->height() < w->height() / 2 && w->dockWidgetArea(dock) == w->dockWidgetArea(m_docks.curvesDock))
    w->resizeDocks({m_docks.curvesDock, dock}, {w->height() * 34 / 100, w->height() * 58 / 100}, Qt::Vertical);
}

void RunViews::showEvidence(const QStringList& groups, const QString& view) {
  QList<qint64> ids;
  QHash<QString, QList<qint64>> byGroup;
  for (int r = 0; r < runsModel()->runCount(); ++r) {
    const store::RunInfo& run = runsModel()->entry(r)->run;
    const QString group = QString::fromStdString(run.group.empty() ? run.name : run.group);
    if (run.kind != store::RunKind::Train || run.status != store::RunStatus::Finished || !groups.contains(group)) continue;
    byGroup[group] << run.id;
  }
  for (const QString& g : groups) {
    std::sort(byGroup[g].begin(), byGroup[g].end());
    ids << byGroup[g];
  }
  if (ids.isEmpty()) return showError(tr("No finished runs of %1 in the run table.").arg(groups.join(", ")));
  m_browser->selectRuns(ids);
  if (view == QLatin1String("lens")) {
    const QList<qint64>& first = byGroup[groups.first()];
    if (first.isEmpty()) return showError(tr("No finished run of %1.").arg(groups.first()));
    const int row = runsModel()->rowOfRun(first.first());
    m_lens->setRun(m_browser->storePath(), first.first(), QString::fromStdString(runsModel()->entry(row)->run.name), first);
    if (groups.size() > 1) m_lens->setCompareWithGroup(groups[1]);
    m_docks.lensDock->show();
    m_docks.lensDock->raise();
    growBottomDock(m_docks.lensDock);
    m_lens->tabs()->setCurrentWidget(m_lens->tokensTab());
    m_lens->run();
    showMessage(tr("Lens: %1 against %2 on the same tokens (Tokens tab)")
                    .arg(groups.first(), groups.size() > 1 ? groups[1] : tr("nothing")),
                10000);
    return;
  }
  showCompare(ids);
  for (int i = 0; i < m_compare->tabs()->count(); ++i)
    if (m_compare->tabs()->tabText(i) == tr("Metrics")) m_compare->tabs()->setCurrentIndex(i);
}

bool RunViews::selectRunByName(const QString& name) {
  if (m_browser->selectRunByName(name)) return true;
  showError(tr("No run named %1 in this project.").arg(name));
  return false;
}

void RunViews::showConfigOf(const QString& storePath, qint64 runId, bool userChose) {
  if (runId == m_configRunId && !userChose) return;
  if (m_config->hasUnsavedEdits()) {
    const bool replace =
        userChose && m_ask(tr("Unsaved configuration"),
                         tr("The Configuration dock has unsaved edits (in no project yet). Replace them with run %1's "
                            "configuration?")
                             .arg(runId),
                         /*offscreenAnswer=*/true);
    if (!replace) {
      showMessage(tr("The Configuration dock keeps your unsaved edits; it does not show run %1's configuration (add "
                     "them as a variant or undo them, then pick the run again).")
                      .arg(runId),
                  15000);
      return;
    }
  }
  try {
    auto s = store::Store::open(storePath.toStdString(), widgets::windowReadOptions());
    auto run = s.get_run(runId);
    if (!run) return;
    const nlohmann::json cfg = nlohmann::json::parse(run->config_json, nullptr, false);
    if (cfg.is_discarded() || !cfg.is_object()) return;
    if (cfg.contains("model")) m_config->setConfigJson(cfg["model"]);
    if (cfg.contains("training")) m_config->setTrainingJson(cfg["training"]);
    m_config->undoStack()->clear();
    m_configRunId = runId;
  } catch (const std::exception& e) {
    showError(QString::fromUtf8(e.what()));
  }
}

}  // namespace pha::gui
