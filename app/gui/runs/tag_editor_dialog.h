// TagEditorDialog: the tags of one or several runs. Each tag of the project is a check box:
// checked when every selected run has it, partly checked when some do (left as it is unless
// clicked), unchecked when none; a line adds new tags (comma- or space-separated). added() and
// removed() are what OK means for the selection; RunActions writes them.
#pragma once

#include <QDialog>
#include <QStringList>
#include <utility>
#include <vector>

class QLineEdit;
class QListWidget;

namespace pha::gui {

class TagEditorDialog : public QDialog {
  Q_OBJECT
 public:
  // counts: each offered tag with how many of the `runs` selected runs carry it.
  TagEditorDialog(const std::vector<std::pair<QString, int>>& counts, int runs, QWidget* parent = nullptr);

  QStringList added() const;
  QStringList removed() const;
  QListWidget* list() const { return m_list; }
  QLineEdit* newTags() const { return m_new; }

 private:
  std::vector<std::pair<QString, int>> m_counts;
  int m_runs;
  QListWidget* m_list;
  QLineEdit* m_new;
};

}  // namespace pha::gui
