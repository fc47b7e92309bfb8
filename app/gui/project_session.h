// ProjectSession: the open project (a folder with project.json, runs.sqlite, checkpoints/),
// where templates live, the user's workspace, the recent-projects list, and new projects made
// from a template or from a dropped .txt corpus. Validation is the engine's (load_project):
// a bad project is refused with its message and nothing is written.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <nlohmann/json.hpp>

#include "runtime/project.h"

namespace pha::gui {

class ProjectSession : public QObject {
  Q_OBJECT
 public:
  explicit ProjectSession(QObject* parent = nullptr);

  // Templates: $PHA_PROJECTS_DIR, else <exe>/../share/pha-workbench/projects (installed), else
  // the source tree's projects/ (build tree).
  static QString templatesDir();
  static QStringList templateNames();
  // Where new projects go by default: <data dir>/projects.
  static QString workspaceDir();

  // Opens a project folder (or its project.json). Returns false with errorText() otherwise.
  bool open(const QString& path);
  // The default project: the quickstart, copied into the workspace on first use.
  QString defaultProjectPath(QString* error = nullptr) const;
  // Copies template `name` to `destination` (must not exist). Returns the folder or "" + error.
  QString createFromTemplate(const QString& name, const QString& destination, QString* error = nullptr) const;
  // A new project in the workspace training on one text file (the quickstart's settings).
  QString createFromTextFile(const QString& textFile, QString* error = nullptr) const;

  bool isOpen() const { return !m_dir.isEmpty(); }
  QString dir() const { return m_dir; }
  QString name() const { return m_name; }
  QString storePath() const { return m_dir.isEmpty() ? QString() : m_dir + "/runs.sqlite"; }
  QStringList runNames() const { return m_runs; }
  // The resolved config of a run ({"project","run","model","training","data"}), null if unknown.
  nlohmann::json runConfig(const QString& run) const;
  QString errorText() const { return m_error; }
  // The project's "profile" section (defaults, present == false, when it has none).
  const pha::runtime::ProfileSettings& profileSettings() const { return m_profile; }

  QStringList recentProjects() const;

 signals:
  void projectOpened(const QString& dir);

 private:
  void addRecent(const QString& dir);
  QString m_dir;
  QString m_name;
  QStringList m_runs;
  std::map<QString, nlohmann::json> m_configs;
  pha::runtime::ProfileSettings m_profile;
  QString m_error;
};

}  // namespace pha::gui
