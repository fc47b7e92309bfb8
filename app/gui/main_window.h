// MainWindow: wires the docks, menus and settings together; the work happens elsewhere.
#pragma once

#include <QMainWindow>

class QActionGroup;

namespace pha::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Geometry and dock state, through QSettings (group "mainWindow").
  void saveSettings() const;
  bool restoreSettings();
  void resetLayout();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void showAbout();

  QByteArray m_defaultState;
};

}  // namespace pha::gui
