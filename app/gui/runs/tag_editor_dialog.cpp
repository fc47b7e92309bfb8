#include "gui/runs/tag_editor_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace pha::gui {

TagEditorDialog::TagEditorDialog(const std::vector<std::pair<QString, int>>& counts, int runs, QWidget* parent)
    : QDialog(parent), m_counts(counts), m_runs(runs) {
  setWindowTitle(tr("Tags of %n run(s)", nullptr, runs));
  setObjectName("tagEditorDialog");
  auto* layout = new QVBoxLayout(this);
  auto* hint = new QLabel(runs == 1 ? tr("Check the tags the run carries.")
                                    : tr("Check a tag to give it to all %1 runs, uncheck it to take it from all; a "
                                         "partly checked tag stays as it is.").arg(runs),
                          this);
  hint->setWordWrap(true);
  layout->addWidget(hint);
  m_list = new QListWidget(this);
  m_list->setObjectName("tagList");
  for (const auto& [tag, n] : m_counts) {
    auto* item = new QListWidgetItem(runs > 1 && n > 0 ? QString("%1  (%2 of %3)").arg(tag).arg(n).arg(runs) : tag, m_list);
    item->setData(Qt::UserRole, tag);
    const bool partly = n > 0 && n < runs;
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable | (partly ? Qt::ItemIsUserTristate : Qt::NoItemFlags));
    item->setCheckState(n == 0 ? Qt::Unchecked : partly ? Qt::PartiallyChecked : Qt::Checked);
  }
  if (m_counts.empty()) m_list->hide();
  layout->addWidget(m_list, 1);
  m_new = new QLineEdit(this);
  m_new->setObjectName("newTags");
  m_new->setPlaceholderText(tr("New tags, e.g. baseline, lr-grid"));
  m_new->setToolTip(tr("A tag is one word: no spaces, no commas"));
  layout->addWidget(m_new);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  m_new->setFocus();
}

QStringList TagEditorDialog::added() const {
  QStringList add;
  for (int i = 0; i < m_list->count(); ++i) {
    const QListWidgetItem* item = m_list->item(i);
    const int had = m_counts[static_cast<size_t>(i)].second;
    if (item->checkState() == Qt::Checked && had < m_runs) add << item->data(Qt::UserRole).toString();
  }
  for (const QString& t : m_new->text().split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts))
    if (!add.contains(t)) add << t;
  return add;
}

QStringList TagEditorDialog::removed() const {
  QStringList remove;
  for (int i = 0; i < m_list->count(); ++i) {
    const QListWidgetItem* item = m_list->item(i);
    if (item->checkState() == Qt::Unchecked && m_counts[static_cast<size_t>(i)].second > 0)
      remove << item->data(Qt::UserRole).toString();
  }
  return remove;
}

}  // namespace pha::gui
