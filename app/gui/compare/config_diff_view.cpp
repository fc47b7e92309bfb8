#include "gui/compare/config_diff_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

namespace pha::gui {

ConfigDiffView::ConfigDiffView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  m_filter = new QLineEdit(this);
  m_filter->setPlaceholderText(tr("Filter paths (e.g. model.)"));
  m_filter->setClearButtonEnabled(true);
  m_table = new QTableWidget(this);
  m_table->setObjectName("configDiffTable");
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->hide();
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_filter);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_message);
  connect(m_filter, &QLineEdit::textChanged, this, [this] { fill(); });
  fill();
}

void ConfigDiffView::setConfigs(const QStringList& labels, const std::vector<nlohmann::json>& configs,
                                const QStringList& problems) {
  m_labels = labels;
  m_problems = problems;
  m_enoughRuns = configs.size() >= 2;
  m_rows = m_enoughRuns ? diffConfigs(configs) : std::vector<DiffRow>{};
  fill();
}

void ConfigDiffView::fill() {
  const QString filter = m_filter->text().trimmed();
  m_table->clear();
  m_table->setColumnCount(m_labels.size() + 1);
  m_table->setHorizontalHeaderLabels(QStringList{tr("path")} + m_labels);
  m_table->setRowCount(0);
  for (const auto& row : m_rows) {
    const QString path = QString::fromStdString(row.path);
    if (!filter.isEmpty() && !path.contains(filter, Qt::CaseInsensitive)) continue;
    const int r = m_table->rowCount();
    m_table->insertRow(r);
    m_table->setItem(r, 0, new QTableWidgetItem(path));
    for (std::size_t c = 0; c < row.values.size(); ++c) {
      auto* item = new QTableWidgetItem(QString::fromStdString(diffCellText(row.values[c])));
      if (!row.values[c]) item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
      m_table->setItem(r, static_cast<int>(c) + 1, item);
    }
  }
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);

  QStringList lines = m_problems;
  if (!m_enoughRuns) lines << tr("Select two or more runs to see how their configurations differ.");
  else if (m_rows.empty()) lines << tr("The configurations are identical.");
  else lines << tr("%n path(s) differ; equal settings are hidden.", nullptr, static_cast<int>(m_rows.size()));
  m_message->setText(lines.join('\n'));
}

int ConfigDiffView::rowCount() const { return m_table->rowCount(); }

QStringList ConfigDiffView::paths() const {
  QStringList out;
  for (int r = 0; r < m_table->rowCount(); ++r) out << m_table->item(r, 0)->text();
  return out;
}

QString ConfigDiffView::cellText(int row, int column) const {
  const QTableWidgetItem* item = m_table->item(row, column + 1);
  return item ? item->text() : QString();
}

QString ConfigDiffView::message() const { return m_message->text(); }

}  // namespace pha::gui
