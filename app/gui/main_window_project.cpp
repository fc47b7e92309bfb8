// MainWindow: opening and creating projects (dialogs, recent list, drag and drop; a project
// whose data is not on this machine opens for browsing, with the Project dock's data banner),
// the feature docks (configuration editor, compare view, generate panel, report view, search view, lens view,
// plot export menus),
// adding the edited configuration to the project as a variant, and the run report export.
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QAction>
#include <QApplication>
#include <QMessageBox>
#include <QProgressBar>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "gui/compare/compare_widget.h"
#include "gui/config/config_editor.h"
#include "widgets/curve_plot.h"
#include "gui/monitor/efficiency_controller.h"
#include "widgets/export_menu.h"
#include "gui/generate/generate_panel.h"
#include "gui/inference/inference_tab.h"
#include "widgets/lens_rows.h"
#include "gui/lens/lens_view.h"
#include "gui/main_window.h"
#include "gui/run_views.h"
#include "gui/window_menus.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/series_colors.h"
#include "widgets/mixer_panel.h"
#include "gui/project/project_data_banner.h"
#include "gui/project/project_session.h"
#include "gui/project/store_damage_banner.h"
#include "gui/report/report_view.h"
#include "gui/queue/queue_controller.h"
#include "gui/runs/run_browser.h"
#include "gui/monitor/run_monitor.h"
#include "gui/compare/run_report.h"
#include "gui/search/search_view.h"
#include "widgets/window_store.h"
#include "store/store.h"
#include "gui/project/store_watcher.h"

namespace pha::gui {

bool MainWindow::openProject(const QString& path) {
  if (m_queueControl->isBusy()) {
    showError(tr("Finish or cancel the running queue before opening another project."));
    return false;
  }
  if (m_docks.inferenceTab->isBusy()) {
    showError(tr("Finish or cancel the inference measurement (Efficiency dock, Inference tab) before opening another "
                 "project."));
    return false;
  }
  m_views->commitDeletes();  // the runs deleted in this window leave the previous project's store now
  if (!m_session->open(path)) {
    showError(tr("Cannot open project %1:\n%2").arg(path, m_session->errorText()));
    return false;
  }
  updateProjectLabel();
  // Every view shows the project now open, or says it is empty: nothing of the previous one stays.
  m_compare->clear();
  m_monitor->clear(tr("Pick a run in the run table to see its curves and mixer weights."));
  m_generate->clearRun();
  m_lens->clearRun();
  m_menus->statusLabel()->clear();
  m_dataBanner->refresh();
  m_storeBanner->refresh();
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
  updateActions();
  if (!m_session->runNames().isEmpty()) {
    const nlohmann::json cfg = m_session->runConfig(m_session->runNames().first());
    if (cfg.contains("model")) m_config->setConfigJson(cfg["model"]);
    if (cfg.contains("training")) m_config->setTrainingJson(cfg["training"]);
    m_config->undoStack()->clear();
    m_views->forgetConfigRun();
  }
  showMessage(m_session->hasLocalData() ? tr("Opened %1").arg(m_session->dir())
                                        : tr("Opened %1 for browsing: %2").arg(m_session->dir(), m_session->missingDataReason()),
              m_session->hasLocalData() ? 5000 : 15000);
  return true;
}

void MainWindow::updateProjectLabel() {
  // One colour per model in every dock: the project's models take the palette in project.json's
  // order (widgets::modelColor); a model added later takes the next free colour.
  QStringList families;
  for (const QString& n : m_session->runNames())
    if (!families.contains(widgets::modelFamily(n))) families << widgets::modelFamily(n);
  widgets::modelColors().assignInOrder(families, /*replace=*/m_colorsProject != m_session->dir());
  m_colorsProject = m_session->dir();
  setWindowTitle(tr("PHA Workbench - %1").arg(m_session->name()));
  // Two lines whatever the project: a 9-run grid listed every name on four lines and pushed
  // Compare selected and the notes field out of the dock at 1280 x 720. The tooltip lists all.
  const QStringList names = m_session->runNames();
  const QString some = names.size() <= 3 ? names.join(", ")
                                         : tr("%1 and %2 more").arg(names.mid(0, 2).join(", ")).arg(names.size() - 2);
  m_docks.projectLabel->setText(tr("<b>%1</b> &nbsp;%2<br>%3 run(s) planned: %4")
                                    .arg(m_session->name().toHtmlEscaped(), m_session->dir().toHtmlEscaped())
                                    .arg(names.size())
                                    .arg(some.toHtmlEscaped()));
  m_docks.projectLabel->setToolTip(
      tr("%1\nruns planned (project.json and the tune section's follow-ups):\n%2").arg(m_session->dir(), names.join("\n")));
}

bool MainWindow::reloadProjectFile() {
  if (!m_session->isOpen()) return false;
  // The running queue trains the plan it read when it started (QueueItem::resolved); the session
  // may read the file again meanwhile.
  if (!m_session->open(m_session->dir())) {
    showError(tr("Cannot read project %1 again:\n%2").arg(m_session->dir(), m_session->errorText()));
    return false;
  }
  updateProjectLabel();
  m_dataBanner->refresh();
  m_storeBanner->refresh();
  if (!m_session->isStoreDamaged()) {
    reloadRuns();  // keeps the selection
    m_report->refresh();
  }
  updateActions();
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
  // Beside the open project (its parent folder, where its siblings are), else the workspace.
  const QString start = m_session->isOpen() ? QFileInfo(m_session->dir()).absolutePath() : ProjectSession::workspaceDir();
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Open project folder"), start);
  if (!dir.isEmpty()) openProject(dir);
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

void MainWindow::buildFeatureDocks() {
  // The data banner stands under the project's name in the Project dock.
  m_dataBanner = new ProjectDataBanner(m_session, this);
  if (auto* layout = qobject_cast<QVBoxLayout*>(m_docks.projectLabel->parentWidget()->layout()))
    layout->insertWidget(layout->indexOf(m_docks.projectLabel) + 1, m_dataBanner);
  connect(m_dataBanner, &ProjectDataBanner::errorOccurred, this, &MainWindow::showError);
  connect(m_dataBanner, &ProjectDataBanner::dataChanged, this, [this] { reloadProjectFile(); });
  m_storeBanner = new StoreDamageBanner(m_session, this);
  if (auto* layout = qobject_cast<QVBoxLayout*>(m_docks.projectLabel->parentWidget()->layout()))
    layout->insertWidget(layout->indexOf(m_docks.projectLabel) + 1, m_storeBanner);
  connect(m_storeBanner, &StoreDamageBanner::recoverRequested, this, &MainWindow::recoverStore);

  m_config = new ConfigEditor(this);
  m_config->setObjectName("configEditor");
  m_docks.configHost->addWidget(m_config, 1);
  auto* row = new QHBoxLayout;
  auto* addVariant = new QPushButton(tr("Add to project as variant..."), this);
  addVariant->setObjectName("addVariantButton");
  addVariant->setToolTip(tr("Write this model and training configuration into project.json as a new variant"));
  row->addStretch(1);
  row->addWidget(addVariant);
  m_docks.configHost->addLayout(row);
  connect(addVariant, &QPushButton::clicked, this, &MainWindow::addConfigAsVariant);

  m_compare = new CompareWidget(this);
  m_compare->setObjectName("compareWidget");
  m_docks.compareHost->addWidget(m_compare, 1);
  connect(this, &MainWindow::compareRequested, this, [this](const QString& store, const QList<qint64>& ids) {
    QList<RunRef> refs;
    for (qint64 id : ids) refs.push_back(RunRef{store, id});
    m_compare->setRuns(refs);
  });

  m_generate = new GeneratePanel(this);
  m_generate->setObjectName("generatePanel");
  m_docks.generateHost->addWidget(m_generate, 1);

  m_report = new ReportView(this);
  m_docks.reportHost->addWidget(m_report, 1);

  m_search = new SearchView(m_session, m_queue, this);
  m_docks.searchHost->addWidget(m_search, 1);

  m_lens = new LensView(this);
  m_lens->setObjectName("lensView");
  m_docks.lensHost->addWidget(m_lens, 1);
  // Recorded effective weights reach the Mixer heatmap's effective view of the same run at once.
  connect(m_lens, &LensView::recorded, this, [this](const QString& storePath, qint64 runId) {
    if (!m_monitor->isLive() && m_monitor->shownRunId() == runId)
      m_docks.mixerPanel->setEffectiveShares(widgets::readEffectiveShares(storePath, runId));
    showMessage(m_lens->status(), 8000);
  });
  // The live plots' Export… menus are RunMonitor's (run, metric and step in the title).
}

void MainWindow::connectSearchView() {
  m_search->setQueueController(m_queueControl);
  connect(m_search, &SearchView::compareRequested, m_views, &RunViews::showCompare);
  connect(m_search, &SearchView::errorOccurred, this, &MainWindow::showError);
  connect(m_search, &SearchView::message, this, &MainWindow::showMessage);
  connect(m_search, &SearchView::sectionPresenceChanged, this, &MainWindow::updateActions);
  connect(m_search, &SearchView::projectFileChanged, this, [this](const QString& what) {
    reloadProjectFile();  // the promoted variant appears in the run list and the queue
    showMessage(what, 10000);
  });
}

void MainWindow::showSearch() {
  m_docks.searchDock->show();
  m_docks.searchDock->raise();
}


void MainWindow::addConfigAsVariant() {
  if (!m_session->isOpen()) {
    showError(tr("Open a project first."));
    return;
  }
  if (!m_config->isValid()) {
    showError(tr("The configuration is not valid: %1").arg(m_config->errorText()));
    return;
  }
  // An invalid training section is refused too (nothing is written): saving the variant without
  // it would train the project's default steps, not what the form shows.
  if (!m_config->isTrainingValid()) {
    showError(tr("The training section is not valid, so nothing was added: %1").arg(m_config->trainingErrorText()));
    return;
  }
  // The engine validates the project with the new variant and writes project.json atomically
  // (runtime::add_variant); here only the name is asked, proposed free.
  const nlohmann::json model = m_config->configJson();
  const QString proposed = m_session->suggestVariantName(QString::fromStdString(model.value("name", std::string("custom"))));
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Add variant"), tr("Name of the new variant in project.json:"),
                                             QLineEdit::Normal, proposed, &ok);
  if (!ok) return;
  const nlohmann::json training = m_config->trainingJson();
  if (!m_session->addVariant(name.trimmed(), model, training)) {
    showError(tr("Cannot add the variant: %1").arg(m_session->errorText()));
    return;
  }
  m_config->markSaved();  // the edits are in project.json now
  reloadProjectFile();    // what the user studies stays: selection, Compare, Lens, curves
  showMessage(tr("Added variant %1 to %2").arg(name.trimmed(), m_session->dir() + "/project.json"), 8000);
}

bool MainWindow::recoverStore() {
  if (!m_session->isOpen() || !m_session->isStoreDamaged()) return false;
  if (m_queueControl->isBusy()) {
    showError(tr("Finish or cancel the running queue before recovering the run store."));
    return false;
  }
  const QString question =
      tr("Recover %1?\n\nWhat SQLite can still read is copied into a new store, checked, and put in its place; the "
         "damaged file is kept beside it as runs.sqlite.damaged-<time>. Rows on damaged pages are lost. No other "
         "program may write to this project meanwhile (a `pha train` of it must be stopped first).")
          .arg(m_session->storePath());
  bool yes = true;
  if (m_recoverConfirm) {
    yes = m_recoverConfirm(question);
  } else if (QApplication::platformName() != "offscreen") {
    yes = QMessageBox::question(this, tr("Recover the run store?"), question, QMessageBox::Yes | QMessageBox::No,
                                QMessageBox::No) == QMessageBox::Yes;
  }
  if (!yes) return false;
  m_compare->clear();  // its connections to the damaged file are closed before the file is replaced
  m_watcher->setStore(QString());
  QApplication::setOverrideCursor(Qt::WaitCursor);
  QString report;
  const bool ok = m_session->recoverStore(&report);
  QApplication::restoreOverrideCursor();
  if (!ok) {
    m_storeBanner->refresh();
    showError(tr("Cannot recover the run store: %1").arg(m_session->errorText()));
    return false;
  }
  openProject(m_session->dir());
  showMessage(report.section('\n', 0, 0), 20000);
  if (isVisible() && QApplication::platformName() != "offscreen")
    QMessageBox::information(this, tr("Run store recovered"), report);
  return true;
}

void MainWindow::exportSelectedReport() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.size() != 1) {
    showError(tr("Select one run to export its report."));
    return;
  }
  const qint64 id = ids.first();
  // The report is a folder: the one named here, created when it does not exist yet (a folder
  // chooser only accepts existing folders).
  const QString out = widgets::askExportPath(this, tr("Report folder (created when it does not exist)"),
                                    widgets::lastExportFolder() + QString("/run-%1-report").arg(id));
  if (out.isEmpty()) return;
  widgets::rememberExportFolder(QFileInfo(out).absolutePath());
  QString error;
  if (!writeRunReport(m_browser->storePath(), id, out, &error))
    showError(error);
  else
    showMessage(tr("Report written to %1/index.html").arg(out), 8000);
}

}  // namespace pha::gui
