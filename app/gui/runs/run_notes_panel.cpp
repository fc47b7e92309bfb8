#include "gui/runs/run_notes_panel.h"

#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>

namespace pha::gui {

RunNotesPanel::RunNotesPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("runNotesPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* row = new QHBoxLayout;
  m_title = new QLabel(this);
  m_title->setObjectName("runNotesTitle");
  m_title->setTextFormat(Qt::PlainText);
  m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  row->addWidget(m_title, 1);
  m_tags = new QPushButton(tr("Tags..."), this);
  m_tags->setObjectName("runNotesTags");
  m_tags->setToolTip(tr("Add or remove the selected runs' tags"));
  connect(m_tags, &QPushButton::clicked, this, &RunNotesPanel::editTagsRequested);
  row->addWidget(m_tags);
  m_save = new QPushButton(tr("Save notes"), this);
  m_save->setObjectName("runNotesSave");
  m_save->setToolTip(tr("Store the notes with the run (Ctrl+Return); `pha runs show` prints them"));
  connect(m_save, &QPushButton::clicked, this, &RunNotesPanel::save);
  row->addWidget(m_save);
  layout->addLayout(row);
  m_edit = new QPlainTextEdit(this);
  m_edit->setObjectName("runNotesEdit");
  m_edit->setPlaceholderText(tr("Notes on this run: what it tests, what you saw"));
  m_edit->setTabChangesFocus(true);
  m_edit->setFixedHeight(m_edit->fontMetrics().lineSpacing() * 3 + 12);
  connect(m_edit, &QPlainTextEdit::textChanged, this, &RunNotesPanel::updateSave);
  auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_edit);
  shortcut->setContext(Qt::WidgetShortcut);
  connect(shortcut, &QShortcut::activated, this, &RunNotesPanel::save);
  layout->addWidget(m_edit);
  clear();
}

void RunNotesPanel::setRun(qint64 runId, const QString& name, const QStringList& tags, const QString& notes) {
  // Unsaved notes of the run stay when the same run is shown again (a reload while typing).
  const bool same = runId == m_runId && m_edit->toPlainText() != m_stored;
  m_runId = runId;
  m_stored = notes;
  m_title->setText(tags.isEmpty() ? tr("#%1 %2: no tags").arg(runId).arg(name)
                                  : tr("#%1 %2: %3").arg(runId).arg(name, tags.join(", ")));
  if (!same) m_edit->setPlainText(notes);
  setEnabled(true);
  updateSave();
}

void RunNotesPanel::clear() {
  m_runId = 0;
  m_stored.clear();
  m_title->setText(tr("Pick one run for its tags and notes"));
  m_edit->clear();
  setEnabled(false);
  updateSave();
}

QString RunNotesPanel::text() const { return m_edit->toPlainText(); }

bool RunNotesPanel::save() {
  if (m_runId == 0 || m_edit->toPlainText() == m_stored) return false;
  m_stored = m_edit->toPlainText();
  updateSave();
  emit saveRequested(m_runId, m_stored);
  return true;
}

void RunNotesPanel::updateSave() { m_save->setEnabled(m_runId != 0 && m_edit->toPlainText() != m_stored); }

}  // namespace pha::gui
