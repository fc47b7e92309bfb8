// ProjectDataBanner: the Project dock's notice for a project whose data is not on this machine
// (a project trained with `pha` on a server, or a first start before the corpus is installed).
// It says that training and evaluation need the data and where it was expected, and offers
// "Locate data..." (points project.json at a local copy through runtime::relocate_data) and,
// when a data package provides what is missing, "Install data..." (DataInstallDialog). Hidden
// while the project has its data.
#pragma once

#include <QFrame>
#include <QString>

class QLabel;
class QPushButton;

namespace pha::gui {

class ProjectSession;

class ProjectDataBanner : public QFrame {
  Q_OBJECT
 public:
  explicit ProjectDataBanner(ProjectSession* session, QWidget* parent = nullptr);

  // Shows what the session's open project is missing; hides when nothing is.
  void refresh();
  // The field "Locate data..." sets next ("data.path", "data.tokenizer.dir"), "" when none.
  QString fieldToLocate() const;
  // Points that field at `path` (what the button does after its file dialog). False with the
  // engine's reason (errorOccurred) when refused; dataChanged() when written.
  bool locate(const QString& path);
  QString text() const;
  QPushButton* installButton() const { return m_install; }

 signals:
  // project.json now points elsewhere, or data was installed: open the project again.
  void dataChanged();
  void errorOccurred(const QString& message);

 private:
  void chooseLocation();
  void installPackages();

  ProjectSession* m_session;
  QLabel* m_text = nullptr;
  QPushButton* m_locate = nullptr;
  QPushButton* m_install = nullptr;
};

}  // namespace pha::gui
