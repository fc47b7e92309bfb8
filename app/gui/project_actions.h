// ProjectActions: what the File menu, drag and drop and the Configuration dock do with project
// folders: a new project from a template, open a folder, a dropped folder / project.json / .txt
// corpus, the edited configuration added to project.json as a variant, a run's report exported.
// Opening is the window's (openRequested): every view then shows the project.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <functional>

class QUrl;
class QWidget;

namespace pha::gui {

class ConfigEditor;
class ProjectSession;
class RunBrowser;

class ProjectActions : public QObject {
  Q_OBJECT
 public:
  ProjectActions(QWidget* window, ProjectSession* session, ConfigEditor* config, RunBrowser* browser);
  void newFromTemplate();
  void openDialog();
  QString defaultProject();  // the quickstart project's folder, made when missing; "" with an error when it cannot be
  void openDropped(const QList<QUrl>& urls);  // the first one: a folder, a project.json or a .txt corpus
  void addConfigAsVariant();
  void exportSelectedReport();
  // The damaged store's recovery (the banner's Recover...): refused while the queue works; asks
  // (setRecoverConfirm, else a message box; yes on the offscreen platform), runs the engine's
  // recovery, says what was saved and opens the project again.
  bool recoverStore(bool queueBusy);
  void setRecoverConfirm(std::function<bool(const QString&)> confirm) { m_recoverConfirm = std::move(confirm); }

 signals:
  void openRequested(const QString& dir);
  void projectFileChanged();  // project.json was written (a variant added)
  void aboutToReplaceStore();  // the recovery replaces the store file: close every connection to it
  void recoveryFailed();
  void errorOccurred(const QString& message);
  void message(const QString& message, int timeoutMs);

 private:
  void showError(const QString& m);
  void showMessage(const QString& m, int timeoutMs);
  QWidget* m_window;
  ProjectSession* m_session;
  ConfigEditor* m_config;
  RunBrowser* m_browser;
  std::function<bool(const QString&)> m_recoverConfirm;
};

}  // namespace pha::gui
