#include "metrics_tab.h"

#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSaveFile>
#include <QTableWidget>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "plot_export.h"

namespace pha::gui {

namespace store = pha::store;

namespace {

QString valueText(double v) { return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 6); }

QString durationText(const store::RunInfo& info) {
  if (info.started_at <= 0) return QObject::tr("not started");
  if (info.ended_at <= 0) return QObject::tr("still running");
  return formatDuration(info.ended_at - info.started_at);
}

}  // namespace

MetricsTab::MetricsTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  m_table = new QTableWidget(this);
  m_table->setObjectName("compareMetricsTable");
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);  // runs side by side, equal
  layout->addWidget(m_table, 1);
  auto* bottom = new QHBoxLayout;
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  bottom->addWidget(m_message, 1);
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export CSV…"));
  connect(exportButton, &QToolButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export metrics table"), "compare-metrics.csv",
                                                tr("CSV data (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!writeCsv(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  });
  bottom->addWidget(exportButton);
  layout->addLayout(bottom);
  setRuns(nullptr);
}

void MetricsTab::addRow(const QString& name, const std::vector<std::pair<QString, QVariant>>& cells) {
  const int r = m_table->rowCount();
  m_table->insertRow(r);
  m_table->setVerticalHeaderItem(r, new QTableWidgetItem(name));
  for (std::size_t c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c].first);
    if (cells[c].second.isValid()) {
      item->setData(Qt::UserRole, cells[c].second);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    m_table->setItem(r, static_cast<int>(c), item);
  }
}

void MetricsTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_table->clear();
  m_table->setRowCount(0);
  const LoadedRuns empty;
  const LoadedRuns& list = runs ? *runs : empty;
  QStringList labels;
  for (const auto& run : list) labels << run.label;
  m_table->setColumnCount(labels.size());
  m_table->setHorizontalHeaderLabels(labels);
  if (list.empty()) {
    m_message->setText(tr("Select two or more saved runs to compare their metrics."));
    return;
  }
  using Cells = std::vector<std::pair<QString, QVariant>>;
  auto fieldRow = [&](const QString& name, auto text) {
    Cells cells;
    for (const auto& run : list) cells.push_back(run.ok() ? text(run) : std::pair<QString, QVariant>{run.error, {}});
    addRow(name, cells);
  };
  fieldRow(tr("project"), [](const LoadedRun& r) { return std::pair<QString, QVariant>{QString::fromStdString(r.info.project), {}}; });
  fieldRow(tr("variant"), [](const LoadedRun& r) { return std::pair<QString, QVariant>{QString::fromStdString(r.info.variant), {}}; });
  fieldRow(tr("status"), [](const LoadedRun& r) {
    QString text = QString::fromUtf8(store::to_string(r.info.status));
    if (!r.info.error.empty()) text += ": " + QString::fromStdString(r.info.error);
    return std::pair<QString, QVariant>{text, {}};
  });
  fieldRow(tr("parameters"), [](const LoadedRun& r) {
    return r.info.n_params > 0 ? std::pair<QString, QVariant>{widgets::formatCount(double(r.info.n_params)), qint64(r.info.n_params)}
                               : std::pair<QString, QVariant>{tr("not recorded"), {}};
  });
  fieldRow(tr("device"), [](const LoadedRun& r) { return std::pair<QString, QVariant>{QString::fromStdString(r.info.device), {}}; });
  fieldRow(tr("duration"), [](const LoadedRun& r) {
    const bool done = r.info.started_at > 0 && r.info.ended_at > 0;
    return std::pair<QString, QVariant>{durationText(r.info),
                                        done ? QVariant(qint64(r.info.ended_at - r.info.started_at)) : QVariant()};
  });
  for (const QString& key : unionOfKeys(list)) {
    const std::string k = key.toStdString();
    fieldRow(tr("%1 final").arg(key), [&](const LoadedRun& r) {
      auto it = r.summaries.find(k);
      if (it == r.summaries.end()) return std::pair<QString, QVariant>{"—", {}};
      return std::pair<QString, QVariant>{tr("%1 (step %2)").arg(valueText(it->second.last)).arg(it->second.last_step),
                                          it->second.last};
    });
    fieldRow(tr("%1 best").arg(key), [&](const LoadedRun& r) {
      auto it = r.best.find(k);
      if (it == r.best.end()) return std::pair<QString, QVariant>{"—", {}};
      return std::pair<QString, QVariant>{tr("%1 (step %2)").arg(valueText(it->second.value)).arg(it->second.step),
                                          it->second.value};
    });
  }
  m_message->setText(tr("Final: the value at the last recorded step. Best: the lowest (loss-like) or highest "
                        "(accuracy-like) value recorded, as the run store ranks the key."));
}

QStringList MetricsTab::rowNames() const {
  QStringList names;
  for (int r = 0; r < m_table->rowCount(); ++r) names << m_table->verticalHeaderItem(r)->text();
  return names;
}

QString MetricsTab::cellText(const QString& row, int run) const {
  const int r = static_cast<int>(rowNames().indexOf(row));
  const QTableWidgetItem* item = r >= 0 ? m_table->item(r, run) : nullptr;
  return item ? item->text() : QString();
}

QVariant MetricsTab::cellValue(const QString& row, int run) const {
  const int r = static_cast<int>(rowNames().indexOf(row));
  const QTableWidgetItem* item = r >= 0 ? m_table->item(r, run) : nullptr;
  return item ? item->data(Qt::UserRole) : QVariant();
}

bool MetricsTab::writeCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  QTextStream out(&file);
  out << "field";
  for (int c = 0; c < m_table->columnCount(); ++c) out << ',' << csvField(m_table->horizontalHeaderItem(c)->text());
  out << '\n';
  for (int r = 0; r < m_table->rowCount(); ++r) {
    out << csvField(m_table->verticalHeaderItem(r)->text());
    for (int c = 0; c < m_table->columnCount(); ++c) {
      const QTableWidgetItem* item = m_table->item(r, c);
      const QVariant v = item ? item->data(Qt::UserRole) : QVariant();
      out << ',' << csvField(v.isValid() ? QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest) : (item ? item->text() : QString()));
    }
    out << '\n';
  }
  out.flush();
  if (!file.commit()) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace pha::gui
