// RunNotesPanel: the notes field of the run picked in the run table (the Project dock, under
// the table): the run's tags and its notes, edited as plain text and saved with Save notes
// (Ctrl+Return) through RunActions::setNotes. Empty and disabled while no single run is picked.
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace pha::gui {

class RunNotesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunNotesPanel(QWidget* parent = nullptr);

  void setRun(qint64 runId, const QString& name, const QStringList& tags, const QString& notes);
  void clear();
  qint64 runId() const { return m_runId; }
  QString text() const;
  // Saves when the text differs from the stored notes; false when there is nothing to save.
  bool save();
  QPlainTextEdit* editor() const { return m_edit; }
  QPushButton* saveButton() const { return m_save; }

 signals:
  void saveRequested(qint64 runId, const QString& notes);
  void editTagsRequested();

 private:
  void updateSave();

  qint64 m_runId = 0;
  QString m_stored;
  QLabel* m_title;
  QPlainTextEdit* m_edit;
  QPushButton* m_save;
  QPushButton* m_tags;
};

}  // namespace pha::gui
