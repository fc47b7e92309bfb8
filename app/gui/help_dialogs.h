// Help menu content: the user guide (resources/guide.html, compiled in as :/pha/guide.html) in a
// QTextBrowser dialog, and the keyboard shortcuts, listed from the window's own menu actions so
// that the list cannot drift from what the keys do.
#pragma once

#include <QList>
#include <QString>

class QMainWindow;
class QWidget;

namespace pha::gui {

struct ShortcutEntry {
  QString command;  // "Run > Run project" (menu path, without the & markers)
  QString keys;     // "Ctrl+R" (every binding, native text, joined with ", ")
};

// Every action in the window's menus (submenus included) that has a key binding, in menu order.
QList<ShortcutEntry> keyboardShortcuts(const QMainWindow& window);
// The guide's HTML (empty when the resource is missing).
QString userGuideHtml();

void showUserGuide(QWidget* parent);
void showKeyboardShortcuts(const QMainWindow& window, QWidget* parent);

}  // namespace pha::gui
