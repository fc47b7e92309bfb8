// StoreDamageBanner: the Project dock's notice for a project whose run store fails PRAGMA
// quick_check (docs/store.md, "Damaged stores"). It says what SQLite found, that the file is
// kept untouched and its runs are not shown (what a damaged file reads may be wrong), and
// offers "Recover..." (the same recovery as `pha runs recover`), which the window runs after
// asking. Hidden while the store is sound.
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace pha::gui {

class ProjectSession;

class StoreDamageBanner : public QFrame {
  Q_OBJECT
 public:
  explicit StoreDamageBanner(ProjectSession* session, QWidget* parent = nullptr);

  // Shows the session's store problems; hides when there are none.
  void refresh();
  QString text() const;  // "" while hidden
  QPushButton* recoverButton() const { return m_recover; }

 signals:
  void recoverRequested();

 private:
  ProjectSession* m_session;
  QLabel* m_text = nullptr;
  QPushButton* m_recover = nullptr;
};

}  // namespace pha::gui
