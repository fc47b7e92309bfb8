#include "main_window.h"

#include <QDockWidget>
#include <QSettings>
#include <gtest/gtest.h>

#include "docks.h"

using namespace pha::gui;

namespace {
QStringList dockNames(const QMainWindow& w) {
  QStringList names;
  for (auto* d : w.findChildren<QDockWidget*>()) names << d->objectName();
  names.sort();
  return names;
}
}  // namespace

TEST(MainWindow, HasEveryDockWithAnObjectName) {
  MainWindow w;
  QStringList expected{dock_names::kProject, dock_names::kConfig, dock_names::kCurves,
                       dock_names::kMixer,   dock_names::kEfficiency, dock_names::kCompare,
                       dock_names::kGenerate, dock_names::kReport};
  expected.sort();
  EXPECT_EQ(dockNames(w), expected);
}

TEST(MainWindow, DockStateSurvivesARestart) {
  QSettings().clear();
  {
    MainWindow w;
    w.show();
    auto* mixer = w.findChild<QDockWidget*>(dock_names::kMixer);
    ASSERT_NE(mixer, nullptr);
    mixer->hide();
    w.saveSettings();
  }
  MainWindow w2;
  EXPECT_TRUE(w2.restoreSettings());
  w2.show();
  EXPECT_FALSE(w2.findChild<QDockWidget*>(dock_names::kMixer)->isVisible());
  EXPECT_TRUE(w2.findChild<QDockWidget*>(dock_names::kCurves)->isVisible());
  w2.resetLayout();
  EXPECT_TRUE(w2.findChild<QDockWidget*>(dock_names::kMixer)->isVisible());
}

TEST(MainWindow, IconResourceIsCompiledIn) {
  MainWindow w;
  EXPECT_FALSE(w.windowIcon().isNull());
}

#include "self_test.h"

TEST(SelfTest, CompiledInResourcesLoad) { EXPECT_EQ(runSelfTest(), 0); }
