#include "gui/project/pha_program.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStringList>

namespace pha::gui {

namespace {
bool isProgram(const QString& path) {
  const QFileInfo info(path);
  return info.isFile() && info.isExecutable();
}
}  // namespace

QString locatePhaProgram(QString* error) {
  // An explicit choice is used or refused, never silently replaced by another program.
  const QString env = qEnvironmentVariable("PHA_CLI");
  if (!env.isEmpty()) {
    if (isProgram(env)) return QFileInfo(env).absoluteFilePath();
    if (error) *error = QObject::tr("PHA_CLI names %1, which is not an executable file.").arg(env);
    return {};
  }
  const QString here = QCoreApplication::applicationDirPath();
  const QStringList candidates = {here + "/pha", here + "/../cli/pha"};
  for (const QString& c : candidates)
    if (isProgram(c)) return QDir::cleanPath(QFileInfo(c).absoluteFilePath());
  const QString onPath = QStandardPaths::findExecutable("pha");
  if (!onPath.isEmpty()) return onPath;
  if (error)
    *error = QObject::tr("The efficiency profiler and runs with several processes need the pha program (the "
                         "profiler measures each point in a fresh pha process; ranks 1 .. N-1 of a run are pha "
                         "processes) and it was not found: not in %1, not in %2, not on PATH. Build it "
                         "(cmake --build <build dir> --target pha), install the package, or set PHA_CLI to its path.")
                 .arg(QDir::cleanPath(here), QDir::cleanPath(here + "/../cli"));
  return {};
}

}  // namespace pha::gui
