// WindowLayout: where the window's docks go and how large they are: the default arrangement
// (project and configuration left, curves over the bottom docks, the mixer right), the shares
// each gets at the window's size, and the geometry and dock state kept in QSettings (group
// "mainWindow"), brought inside a smaller screen than the one it was saved on.
#pragma once

#include <QByteArray>
#include <functional>

#include "gui/docks.h"

class QMainWindow;

namespace pha::gui {

class WindowLayout {
 public:
  // compareShowsRuns: Compare already shows runs (it then gets the larger share of the height).
  WindowLayout(QMainWindow* window, const Docks& docks, std::function<bool()> compareShowsRuns)
      : m_window(window), m_docks(docks), m_compareShowsRuns(std::move(compareShowsRuns)) {}
  void place();              // the default arrangement
  void fitScreen();          // most of the screen (there may be no window manager to size it), at least 1000 x 640
  void markDefault();        // the arrangement Reset layout returns to: the current one
  void applyDefaultSizes();  // each dock's share of the window as it is now
  void shown();              // the window is shown: default shares once, unless a saved state was restored
  void save() const;
  bool restore();
  void reset();

 private:
  QMainWindow* m_window;
  const Docks& m_docks;
  std::function<bool()> m_compareShowsRuns;
  QByteArray m_defaultState;
  bool m_sized = false;
  bool m_restored = false;
  bool m_refitDocks = false;  // restored into a smaller screen than it was saved on
};

}  // namespace pha::gui
