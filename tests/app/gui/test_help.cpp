// Help menu: the user guide (a compiled-in resource shown in a dialog) has a section for every
// dock, and the keyboard-shortcut list is made from the window's menu actions, so a changed key
// shows up in it.
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDockWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>

#include "gui/help_dialogs.h"
#include "gui/main_window.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;

using pha::test::actionNamed;

namespace {

QString keysOf(const QList<ShortcutEntry>& entries, const QString& command) {
  for (const auto& e : entries)
    if (e.command == command) return e.keys;
  return "(not listed)";
}

template <typename T>
T* openDialogChild(const char* dialogName) {
  for (QWidget* top : QApplication::topLevelWidgets())
    if (top->objectName() == dialogName && top->isVisible()) return top->findChild<T*>();
  return nullptr;
}

}  // namespace

TEST(Help, TheUserGuideHasASectionForEveryDockAndOpensFromHelp) {
  MainWindow w;
  const QString html = userGuideHtml();
  ASSERT_FALSE(html.isEmpty()) << "resources/guide.html is compiled in as :/pha/guide.html";
  const auto docks = w.findChildren<QDockWidget*>();
  ASSERT_EQ(docks.size(), 10);
  for (const QDockWidget* d : docks) EXPECT_TRUE(html.contains("<h3>" + d->windowTitle() + "</h3>")) << d->windowTitle().toStdString();
  QAction* guide = actionNamed(w, "&User guide");
  ASSERT_NE(guide, nullptr);
  EXPECT_EQ(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
  guide->trigger();
  auto* browser = openDialogChild<QTextBrowser>("userGuideDialog");
  ASSERT_NE(browser, nullptr);
  EXPECT_TRUE(browser->toPlainText().contains("debiased exponential moving average"));
  EXPECT_TRUE(browser->toPlainText().contains("VmHWM"));
  browser->window()->close();
}

TEST(Help, KeyboardShortcutsAreListedFromTheMenuActions) {
  MainWindow w;
  QList<ShortcutEntry> entries = keyboardShortcuts(w);
  EXPECT_EQ(keysOf(entries, "Run > Run project"), "Ctrl+R");
  EXPECT_EQ(keysOf(entries, "Run > Evaluate selected run"), "Ctrl+Shift+E");
  EXPECT_EQ(keysOf(entries, "File > Open project"), QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText));
  EXPECT_EQ(keysOf(entries, "Help > User guide"), QKeySequence(QKeySequence::HelpContents).toString(QKeySequence::NativeText));
  EXPECT_EQ(keysOf(entries, "Help > About PHA Workbench"), "(not listed)") << "no key, not listed";
  // The list follows the actions: a changed binding is what it shows.
  actionNamed(w, "&Run project")->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  entries = keyboardShortcuts(w);
  EXPECT_EQ(keysOf(entries, "Run > Run project"), "Ctrl+Shift+R");

  QAction* list = actionNamed(w, "&Keyboard shortcuts");
  ASSERT_NE(list, nullptr);
  list->trigger();
  auto* table = openDialogChild<QTableWidget>("shortcutsDialog");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->rowCount(), entries.size());
  EXPECT_NE(actionNamed(w, "&About PHA Workbench"), nullptr) << "About is kept";
  table->window()->close();
}

// `pha-workbench --help` answers on a machine without a display (it aborted with exit 134), and
// starting the window there says why it cannot instead of aborting.
TEST(Help, CommandLineHelpNeedsNoDisplayAndNoDisplayIsSaidPlainly) {
  auto run = [](const std::string& args) {
    const std::string cmd = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" + std::string(PHA_WORKBENCH_PATH) +
                            "' " + args + " 2>&1";
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = p ? pclose(p) : -1;
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
  };
  const auto [helpCode, help] = run("--help");
  EXPECT_EQ(helpCode, 0) << help;
  EXPECT_NE(help.find("--measure-efficiency"), std::string::npos) << help;
  EXPECT_NE(help.find("Usage:"), std::string::npos) << help;
  const auto [versionCode, version] = run("--version");
  EXPECT_EQ(versionCode, 0) << version;
  EXPECT_EQ(version.rfind("pha-workbench ", 0), 0u) << version;
  const auto [code, out] = run("");
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("no display"), std::string::npos) << out;
}
