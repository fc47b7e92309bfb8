#include "gui/project_actions.h"

#include <QApplication>
#include <QFileDialog>
#include <QMessageBox>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QUrl>

#include "gui/compare/run_report.h"
#include "gui/config/config_editor.h"
#include "gui/project/project_session.h"
#include "gui/runs/run_browser.h"
#include "widgets/export_menu.h"

namespace pha::gui {

ProjectActions::ProjectActions(QWidget* window, ProjectSession* session, ConfigEditor* config, RunBrowser* browser)
    : QObject(window), m_window(window), m_session(session), m_config(config), m_browser(browser) {}

void ProjectActions::showError(const QString& m) { emit errorOccurred(m); }
void ProjectActions::showMessage(const QString& m, int timeoutMs) { emit message(m, timeoutMs); }

void ProjectActions::newFromTemplate() {
  const QStringList names = ProjectSession::templateNames();
  if (names.isEmpty()) {
    showError(tr("No project templates found in %1").arg(ProjectSession::templatesDir()));
    return;
  }
  bool ok = false;
  const QString name = QInputDialog::getItem(m_window, tr("New project"), tr("Template:"), names, 0, false, &ok);
  if (!ok) return;
  const QString dest = QFileDialog::getSaveFileName(m_window, tr("New project folder"), ProjectSession::workspaceDir() + "/" + name);
  if (dest.isEmpty()) return;
  QString error;
  const QString dir = m_session->createFromTemplate(name, dest, &error);
  if (dir.isEmpty())
    showError(error);
  else
    emit openRequested(dir);
}

QString ProjectActions::defaultProject() {
  QString error;
  const QString path = m_session->defaultProjectPath(&error);
  if (path.isEmpty()) showError(tr("Cannot create the quickstart project: %1").arg(error));
  return path;
}

void ProjectActions::openDialog() {
  // Beside the open project (its parent folder, where its siblings are), else the workspace.
  const QString start = m_session->isOpen() ? QFileInfo(m_session->dir()).absolutePath() : ProjectSession::workspaceDir();
  const QString dir = QFileDialog::getExistingDirectory(m_window, tr("Open project folder"), start);
  if (!dir.isEmpty()) emit openRequested(dir);
}

void ProjectActions::openDropped(const QList<QUrl>& urls) {
  for (const QUrl& url : urls) {
    const QFileInfo info(url.toLocalFile());
    if (info.isDir() || info.fileName() == "project.json") {
      emit openRequested(info.isDir() ? info.absoluteFilePath() : info.absolutePath());
    } else if (info.suffix().compare("txt", Qt::CaseInsensitive) == 0) {
      QString error;
      const QString dir = m_session->createFromTextFile(info.absoluteFilePath(), &error);
      if (dir.isEmpty())
        showError(tr("Cannot make a project from %1: %2").arg(info.fileName(), error));
      else
        emit openRequested(dir);
    } else {
      showError(tr("Drop a project folder, a project.json or a .txt corpus (got %1).").arg(info.fileName()));
    }
    return;
  }
}

void ProjectActions::addConfigAsVariant() {
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
  const QString name = QInputDialog::getText(m_window, tr("Add variant"), tr("Name of the new variant in project.json:"),
                                             QLineEdit::Normal, proposed, &ok);
  if (!ok) return;
  const nlohmann::json training = m_config->trainingJson();
  if (!m_session->addVariant(name.trimmed(), model, training)) {
    showError(tr("Cannot add the variant: %1").arg(m_session->errorText()));
    return;
  }
  m_config->markSaved();  // the edits are in project.json now
  emit projectFileChanged();  // what the user studies stays: selection, Compare, Lens, curves
  showMessage(tr("Added variant %1 to %2").arg(name.trimmed(), m_session->dir() + "/project.json"), 8000);
}

void ProjectActions::exportSelectedReport() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.size() != 1) {
    showError(tr("Select one run to export its report."));
    return;
  }
  const qint64 id = ids.first();
  // The report is a folder: the one named here, created when it does not exist yet (a folder
  // chooser only accepts existing folders).
  const QString out = widgets::askExportPath(m_window, tr("Report folder (created when it does not exist)"),
                                    widgets::lastExportFolder() + QString("/run-%1-report").arg(id));
  if (out.isEmpty()) return;
  widgets::rememberExportFolder(QFileInfo(out).absolutePath());
  QString error;
  if (!writeRunReport(m_browser->storePath(), id, out, &error))
    showError(error);
  else
    showMessage(tr("Report written to %1/index.html").arg(out), 8000);
}

bool ProjectActions::recoverStore(bool queueBusy) {
  if (!m_session->isOpen() || !m_session->isStoreDamaged()) return false;
  if (queueBusy) {
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
    yes = QMessageBox::question(m_window, tr("Recover the run store?"), question, QMessageBox::Yes | QMessageBox::No,
                                QMessageBox::No) == QMessageBox::Yes;
  }
  if (!yes) return false;
  emit aboutToReplaceStore();  // the window closes its connections to the damaged file
  QApplication::setOverrideCursor(Qt::WaitCursor);
  QString report;
  const bool ok = m_session->recoverStore(&report);
  QApplication::restoreOverrideCursor();
  if (!ok) {
    emit recoveryFailed();
    showError(tr("Cannot recover the run store: %1").arg(m_session->errorText()));
    return false;
  }
  emit openRequested(m_session->dir());
  showMessage(report.section('\n', 0, 0), 20000);
  if (m_window->isVisible() && QApplication::platformName() != "offscreen")
    QMessageBox::information(m_window, tr("Run store recovered"), report);
  return true;
}

}  // namespace pha::gui
