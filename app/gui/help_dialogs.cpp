#include "gui/help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace pha::gui {

namespace {

QString plain(const QString& menuText) {
  QString t = menuText;
  t.remove(QRegularExpression(QStringLiteral("&(?!&)")));
  return t.remove(QStringLiteral("...")).trimmed();
}

void collect(const QMenu* menu, const QString& path, QList<ShortcutEntry>& out) {
  for (const QAction* a : menu->actions()) {
    if (a->isSeparator()) continue;
    const QString here = path + QStringLiteral(" > ") + plain(a->text());
    if (a->menu()) {
      collect(a->menu(), here, out);
      continue;
    }
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    if (!keys.isEmpty()) out.push_back({here, keys.join(QStringLiteral(", "))});
  }
}

QDialog* makeDialog(QWidget* parent, const QString& title, QWidget* content, const QSize& size) {
  auto* dialog = new QDialog(parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(title);
  auto* layout = new QVBoxLayout(dialog);
  content->setParent(dialog);
  layout->addWidget(content, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  layout->addWidget(buttons);
  dialog->resize(size);
  return dialog;
}

}  // namespace

QList<ShortcutEntry> keyboardShortcuts(const QMainWindow& window) {
  QList<ShortcutEntry> out;
  for (const QAction* top : window.menuBar()->actions())
    if (top->menu()) collect(top->menu(), plain(top->text()), out);
  return out;
}

QString userGuideHtml() {
  QFile file(QStringLiteral(":/pha/guide.html"));
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

void showUserGuide(QWidget* parent) {
  auto* browser = new QTextBrowser;
  browser->setObjectName("userGuide");
  browser->setOpenExternalLinks(true);
  browser->setHtml(userGuideHtml());
  QDialog* dialog = makeDialog(parent, QObject::tr("PHA Workbench user guide"), browser, QSize(760, 820));
  dialog->setObjectName("userGuideDialog");
  dialog->show();
}

void showKeyboardShortcuts(const QMainWindow& window, QWidget* parent) {
  const QList<ShortcutEntry> entries = keyboardShortcuts(window);
  auto* table = new QTableWidget(static_cast<int>(entries.size()), 2);
  table->setObjectName("shortcutsTable");
  table->setHorizontalHeaderLabels({QObject::tr("Command"), QObject::tr("Keys")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  for (int r = 0; r < entries.size(); ++r) {
    table->setItem(r, 0, new QTableWidgetItem(entries[r].command));
    table->setItem(r, 1, new QTableWidgetItem(entries[r].keys));
  }
  QDialog* dialog = makeDialog(parent, QObject::tr("Keyboard shortcuts"), table, QSize(520, 480));
  dialog->setObjectName("shortcutsDialog");
  dialog->show();
}

}  // namespace pha::gui
