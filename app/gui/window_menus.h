// WindowMenus: every menu, the toolbar and the status bar of the main window, built in one place
// on MainWindow's public actions, and which of them are enabled (update) for the window's state.
#pragma once

#include <QObject>
#include <QString>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;

namespace pha::gui {

class MainWindow;

class WindowMenus : public QObject {
  Q_OBJECT
 public:
  explicit WindowMenus(MainWindow* window);  // builds the status bar, the menus and the toolbar

  struct State {
    bool open = false;     // a project is open
    bool busy = false;     // the queue or the inference measurement is working
    bool paused = false;   // the queue is paused
    bool search = false;   // the project has a "search" section
    QString unavailable;   // why Run, Measure and Evaluate cannot work (missing data, damaged store); "" : they can
    bool storeDamaged = false;
  };
  void update(const State& state);

  QLabel* statusLabel() const { return m_statusLabel; }
  QProgressBar* progress() const { return m_progress; }
  QAction* undoDeleteAction() const { return m_undoDeleteAction; }

 private:
  void buildMenus();
  void buildRunMenu();
  void buildViewMenu();
  void buildStatusBar();
  void showAbout();
  void refreshRecentMenu();

  MainWindow* m_window;
  QAction* m_runAction = nullptr;
  QAction* m_planAction = nullptr;
  QAction* m_measureAction = nullptr;
  QAction* m_evaluateAction = nullptr;
  QAction* m_searchAction = nullptr;
  QAction* m_pauseAction = nullptr;
  QAction* m_cancelAction = nullptr;
  QAction* m_undoDeleteAction = nullptr;
  QMenu* m_recentMenu = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_statusLabel = nullptr;
};

}  // namespace pha::gui
