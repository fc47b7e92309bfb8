// GUI tests: a QApplication on the offscreen platform, settings isolated from the user's.
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
  QTemporaryDir config;
  qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
  QApplication app(argc, argv);
  Q_INIT_RESOURCE(pha);
  QApplication::setOrganizationName("pha-workbench-tests");
  QApplication::setApplicationName("pha-workbench-tests");
  // The window's queue trains one run at a time in these tests (their status lines and live
  // curves are the one-run ones); the tests of runs side by side set engine/jobs themselves.
  QSettings().setValue("engine/jobs", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
