#include "project_session.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <fstream>

#include "core/paths.h"
#include "runtime/project.h"

#ifndef PHA_SOURCE_PROJECTS_DIR
#define PHA_SOURCE_PROJECTS_DIR ""
#endif

namespace pha::gui {

namespace {
bool copyTree(const QString& from, const QString& to, QString* error) {
  QDir src(from);
  if (!src.exists()) {
    if (error) *error = QObject::tr("template folder %1 does not exist").arg(from);
    return false;
  }
  QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString file = it.next();
    const QString rel = src.relativeFilePath(file);
    if (rel.startsWith("runs.sqlite") || rel.startsWith("checkpoints/")) continue;  // never copy results
    const QString target = to + "/" + rel;
    QDir().mkpath(QFileInfo(target).absolutePath());
    if (!QFile::copy(file, target)) {
      if (error) *error = QObject::tr("cannot copy %1 to %2").arg(file, target);
      return false;
    }
  }
  return true;
}
}  // namespace

ProjectSession::ProjectSession(QObject* parent) : QObject(parent) {}

QString ProjectSession::templatesDir() {
  const QString env = qEnvironmentVariable("PHA_PROJECTS_DIR");
  if (!env.isEmpty()) return env;
  const QString installed = QCoreApplication::applicationDirPath() + "/../share/pha-workbench/projects";
  if (QDir(installed).exists()) return QDir(installed).canonicalPath();
  return QString(PHA_SOURCE_PROJECTS_DIR);
}

QStringList ProjectSession::templateNames() {
  QStringList names;
  for (const QString& d : QDir(templatesDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    if (QFile::exists(templatesDir() + "/" + d + "/project.json")) names << d;
  return names;
}

QString ProjectSession::workspaceDir() { return QString::fromStdString((pha::data_dir() / "projects").string()); }

bool ProjectSession::open(const QString& path) {
  try {
    const runtime::Project p = runtime::load_project(path.toStdString());
    m_dir = QDir(QString::fromStdString(p.dir)).absolutePath();
    m_name = QString::fromStdString(p.name.empty() ? QFileInfo(m_dir).fileName().toStdString() : p.name);
    m_runs.clear();
    m_configs.clear();
    for (const auto& r : p.runs) {
      m_runs << QString::fromStdString(r.name);
      m_configs[QString::fromStdString(r.name)] = r.config;
    }
    m_profile = p.profile;
    m_error.clear();
    addRecent(m_dir);
    emit projectOpened(m_dir);
    return true;
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
}

QString ProjectSession::defaultProjectPath(QString* error) const {
  const QString dest = workspaceDir() + "/quickstart";
  if (QFile::exists(dest + "/project.json")) return dest;
  return createFromTemplate("quickstart", dest, error);
}

QString ProjectSession::createFromTemplate(const QString& name, const QString& destination, QString* error) const {
  if (QFileInfo::exists(destination + "/project.json")) {
    if (error) *error = tr("%1 already holds a project").arg(destination);
    return {};
  }
  if (!copyTree(templatesDir() + "/" + name, destination, error)) return {};
  return QDir(destination).absolutePath();
}

QString ProjectSession::createFromTextFile(const QString& textFile, QString* error) const {
  const QFileInfo info(textFile);
  if (!info.isFile()) {
    if (error) *error = tr("%1 is not a file").arg(textFile);
    return {};
  }
  QString dest = workspaceDir() + "/" + info.completeBaseName();
  for (int i = 2; QFileInfo::exists(dest); ++i) dest = workspaceDir() + "/" + info.completeBaseName() + "-" + QString::number(i);
  try {
    std::ifstream in((templatesDir() + "/quickstart/project.json").toStdString());
    nlohmann::json j = nlohmann::json::parse(in);
    nlohmann::json data = j.value("data", nlohmann::json::object());
    nlohmann::json fresh = {{"kind", "file"}, {"path", info.absoluteFilePath().toStdString()}};
    if (data.contains("tokenizer")) fresh["tokenizer"] = data["tokenizer"];
    j["data"] = fresh;
    j["name"] = info.completeBaseName().toStdString();
    j["description"] = "Trains the quickstart's variants on " + info.fileName().toStdString();
    runtime::parse_project(j, dest.toStdString(), info.absoluteFilePath().toStdString());  // validate first
    QDir().mkpath(dest);
    std::ofstream out((dest + "/project.json").toStdString());
    out << j.dump(2) << "\n";
    return dest;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return {};
  }
}

nlohmann::json ProjectSession::runConfig(const QString& run) const {
  auto it = m_configs.find(run);
  return it == m_configs.end() ? nlohmann::json() : it->second;
}

QStringList ProjectSession::recentProjects() const {
  QStringList list = QSettings().value("projects/recent").toStringList();
  list.erase(std::remove_if(list.begin(), list.end(), [](const QString& d) { return !QFile::exists(d + "/project.json"); }),
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
