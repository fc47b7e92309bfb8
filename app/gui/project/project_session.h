// ProjectSession: the open project (a folder with project.json, its run store, checkpoints/),
// the user's workspace and the recent-projects list: Qt glue over the engine's project files
// (project/project.h, project/project_files.h), which validate, find templates, create projects
// and add variants. A bad project is refused with its message and nothing is written; a project
// whose data is not on this machine opens for browsing (missingData() says what is missing).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <vector>
#include <nlohmann/json.hpp>

#include "project/project.h"

namespace pha::gui {

class ProjectSession : public QObject {
  Q_OBJECT
 public:
  explicit ProjectSession(QObject* parent = nullptr);

  // Templates, in the engine's one search order (runtime::template_dirs): the first template
  // folder (for messages), and every template name.
  static QString templatesDir();
  static QStringList templateNames();
  // Where new projects go by default: <data dir>/projects.
  static QString workspaceDir();

  // Opens a project folder (or its project.json). Returns false with errorText() otherwise. Its
  // corpus or tokenizer files need not be here (a project trained on a server): the runs can be
  // browsed, and missingData() lists what training and evaluation would need.
  bool open(const QString& path);
  // The default project: the quickstart, copied into the workspace on first use.
  QString defaultProjectPath(QString* error = nullptr) const;
  // Copies template `name` to `destination` (must not exist). Returns the folder or "" + error.
  QString createFromTemplate(const QString& name, const QString& destination, QString* error = nullptr) const;
  // A new project in the workspace training the quickstart's variants on a text file or a
  // folder of .txt files (runtime::create_project_from_text).
  QString createFromTextFile(const QString& textFile, QString* error = nullptr) const;
  // A variant name the open project does not use yet: base, base-2, ...
  QString suggestVariantName(const QString& base) const;
  // Adds a variant to the open project's project.json (runtime::add_variant); open() it again
  // to see its runs. False with errorText() when refused; the file is then unchanged.
  bool addVariant(const QString& name, const nlohmann::json& model, const nlohmann::json& training);

  bool isOpen() const { return !m_dir.isEmpty(); }
  QString dir() const { return m_dir; }
  QString name() const { return m_name; }
  QString storePath() const;  // runtime::store_path_in(dir()); "" when no project is open
  QStringList runNames() const { return m_runs; }
  // The resolved config of a run ({"project","run","model","training","data"}), null if unknown.
  nlohmann::json runConfig(const QString& run) const;
  QString errorText() const { return m_error; }
  // The project's "profile" section (defaults, present == false, when it has none).
  const project::ProfileSettings& profileSettings() const { return m_profile; }

  // Data the open project names that is not on this machine (empty: it can train).
  const std::vector<project::MissingData>& missingData() const { return m_missing; }
  bool hasLocalData() const { return m_missing.empty(); }
  // One sentence for tooltips and the status bar: why training and evaluation cannot start.
  QString missingDataReason() const;
  // Package ids (`pha data install ...`) that would provide the missing data.
  QStringList missingPackages() const;
  // Points `field` (a MissingData field) at a local copy through runtime::relocate_data; open()
  // the project again to use it. False with errorText() when refused (project.json unchanged).
  bool relocateData(const QString& field, const QString& path);

  // The open project's run store as PRAGMA quick_check found it when the project was opened
  // (store::quick_check): empty when sound (or not created yet). A damaged store is shown, not
  // read: the window says so and writes nothing to it until the user chooses to recover it.
  QStringList storeProblems() const { return m_storeProblems; }
  bool isStoreDamaged() const { return !m_storeProblems.isEmpty(); }
  // Checks the store again (after a recovery, or when a read met damage).
  void recheckStore();
  // Recovers the damaged store (store::recover_store, as `pha runs recover`): true with a
  // summary of what was saved in *report; false with errorText(). Every connection to the
  // store must be closed first (the caller's).
  bool recoverStore(QString* report);

  QStringList recentProjects() const;

 signals:
  void projectOpened(const QString& dir);

 private:
  void addRecent(const QString& dir);
  QString m_dir;
  QString m_name;
  QStringList m_runs;
  std::map<QString, nlohmann::json> m_configs;
  project::ProfileSettings m_profile;
  std::vector<project::MissingData> m_missing;
  QStringList m_storeProblems;
  QString m_error;
};

}  // namespace pha::gui
