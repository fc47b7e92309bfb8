// Helpers the window's tests share: wait until the run queue is idle, find a menu action by
// its text.
#pragma once

#include <QAction>
#include <QString>
#include <QTest>
#include <QWidget>

#include "gui/main_window.h"
#include "gui/queue/run_queue.h"

namespace pha::test {

// True once the window's queue runs nothing and holds nothing, false after timeoutMs.
inline bool waitIdle(pha::gui::MainWindow& w, int timeoutMs) {
  return QTest::qWaitFor([&] { return !w.queue()->isBusy() && w.queue()->pendingCount() == 0; }, timeoutMs);
}

// The first action under `w` whose text is `text` (menus keep their "&" accelerators), or null.
inline QAction* actionNamed(const QWidget& w, const QString& text) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

}  // namespace pha::test
