#include "gui/project/project_session.h"

#include <QDir>
#include <QFile>
#include <algorithm>
#include <QFileInfo>
#include <QSettings>

#include "core/paths.h"
#include "project/project.h"
#include "project/project_tuning.h"
#include "project/project_files.h"
#include "store/store.h"
#include "store/store_recover.h"

namespace pha::gui {

ProjectSession::ProjectSession(QObject* parent) : QObject(parent) {}

QString ProjectSession::templatesDir() {
  const auto dirs = project::template_dirs();
  return dirs.empty() ? tr("$PHA_PROJECTS_DIR or <program folder>/../share/pha-workbench/projects") : QString::fromStdString(dirs.front());
}

QStringList ProjectSession::templateNames() {
  QStringList names;
  for (const auto& n : project::template_names()) names << QString::fromStdString(n);
  return names;
}

QString ProjectSession::workspaceDir() { return QString::fromStdString((core::data_dir() / "projects").string()); }

QString ProjectSession::storePath() const {
  return m_dir.isEmpty() ? QString() : QString::fromStdString(project::store_path_in(m_dir.toStdString()));
}

bool ProjectSession::open(const QString& path) {
  try {
    project::LoadOptions options;
    options.require_data = false;  // browsing needs the store, not the corpus
    // With the tune section's follow-up runs the store's results already plan (project_tuning.h).
    const project::Project p = project::plan_tuning_followups(project::load_project(path.toStdString(), options)).project;
    m_dir = QDir(QString::fromStdString(p.dir)).absolutePath();
    m_name = QString::fromStdString(p.name.empty() ? QFileInfo(m_dir).fileName().toStdString() : p.name);
    m_runs.clear();
    m_configs.clear();
    for (const auto& r : p.runs) {
      m_runs << QString::fromStdString(r.name);
      m_configs[QString::fromStdString(r.name)] = r.config;
    }
    m_profile = p.profile;
    m_missing = p.missing_data;
    m_error.clear();
    recheckStore();
    addRecent(m_dir);
    emit projectOpened(m_dir);
    return true;
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
}

QString ProjectSession::defaultProjectPath(QString* error) const {
  // The engine's one rule for the quickstart's working copy (the same `pha quickstart` uses): an
  // untrained copy of an older template is replaced, one with runs kept.
  try {
    std::string note;
    const QString dest = QString::fromStdString(project::template_working_copy("quickstart", (workspaceDir() + "/quickstart").toStdString(), &note));
    if (!note.empty()) qInfo("pha-workbench: %s", note.c_str());
    return dest;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return {};
  }
}

QString ProjectSession::createFromTemplate(const QString& name, const QString& destination, QString* error) const {
  try {
    return QString::fromStdString(project::copy_template(name.toStdString(), destination.toStdString()));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return {};
  }
}

QString ProjectSession::createFromTextFile(const QString& textFile, QString* error) const {
  try {
    return QString::fromStdString(project::create_project_from_text(textFile.toStdString(), workspaceDir().toStdString()));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return {};
  }
}

QString ProjectSession::suggestVariantName(const QString& base) const {
  try {
    return QString::fromStdString(project::unique_variant_name(m_dir.toStdString(), base.toStdString()));
  } catch (const std::exception&) {
    return base;  // the project file cannot be read: addVariant reports why
  }
}

bool ProjectSession::addVariant(const QString& name, const nlohmann::json& model, const nlohmann::json& training) {
  try {
    project::add_variant(m_dir.toStdString(), name.toStdString(), model, training);
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
  return true;
}

QString ProjectSession::missingDataReason() const {
  if (m_missing.empty()) return {};
  QStringList where;
  for (const auto& m : m_missing) where << QStringLiteral("%1 = %2").arg(QString::fromStdString(m.field), QString::fromStdString(m.path));
  return tr("Training and evaluation need the project's data, which is not on this machine (%1).").arg(where.join("; "));
}

QStringList ProjectSession::missingPackages() const {
  QStringList ids;
  for (const auto& m : m_missing)
    if (!m.package.empty() && !ids.contains(QString::fromStdString(m.package))) ids << QString::fromStdString(m.package);
  return ids;
}

bool ProjectSession::relocateData(const QString& field, const QString& path) {
  try {
    project::relocate_data(m_dir.toStdString(), field.toStdString(), path.toStdString());
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
  return true;
}

nlohmann::json ProjectSession::runConfig(const QString& run) const {
  auto it = m_configs.find(run);
  return it == m_configs.end() ? nlohmann::json() : it->second;
}

void ProjectSession::recheckStore() {
  m_storeProblems.clear();
  if (m_dir.isEmpty()) return;
  try {
    for (const auto& p : store::quick_check(storePath().toStdString())) m_storeProblems << QString::fromStdString(p);
  } catch (const std::exception& e) {  // cannot even be opened: as damaged as it gets
    m_storeProblems << QString::fromUtf8(e.what());
  }
}

bool ProjectSession::recoverStore(QString* report) {
  try {
    const store::RecoveryReport r = store::recover_store(storePath().toStdString());
    QStringList saved;
    for (const auto& t : r.tables) {
      QString line = tr("%1: %2 saved").arg(QString::fromStdString(t.table)).arg(t.saved);
      if (t.unreadable > 0) line += tr(" (unreadable in %1 place(s): %2)").arg(t.unreadable).arg(QString::fromStdString(t.error));
      if (t.rejected > 0) line += tr(", %1 refused").arg(t.rejected);
      saved << line;
    }
    if (report)
      *report = tr("Recovered %1 run(s) into a new %2 (integrity check: %3). The damaged file is kept as %4.\n\n%5")
                    .arg(r.runs.size())
                    .arg(storePath(), QString::fromStdString(r.integrity), QString::fromStdString(r.damaged_path), saved.join('\n'));
    recheckStore();
    return true;
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    recheckStore();
    return false;
  }
}

QStringList ProjectSession::recentProjects() const {
  QStringList list = QSettings().value("projects/recent").toStringList();
  list.erase(std::remove_if(list.begin(), list.end(), [](const QString& d) { return !QFile::exists(QString::fromStdString(project::project_file_in(d.toStdString()))); }),
             list.end());
  return list;
}

void ProjectSession::addRecent(const QString& dir) {
  QStringList list = QSettings().value("projects/recent").toStringList();
  list.removeAll(dir);
  list.prepend(dir);
  while (list.size() > 10) list.removeLast();
  QSettings().setValue("projects/recent", list);
}

}  // namespace pha::gui
