// Compare dock, Metrics tab: one column per run; rows for status, parameters, device and
// duration, then the final and the best value of each metric key (best with its step).
// Cells hold the stored number in Qt::UserRole; CSV export writes the table.
#pragma once

#include <QStringList>
#include <QVariant>
#include <QWidget>
#include <memory>

#include "compare_data.h"

class QLabel;
class QTableWidget;

namespace pha::gui {

class MetricsTab : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);

  QStringList rowNames() const;  // e.g. "status", "val/loss final", "val/loss best"
  QString cellText(const QString& row, int run) const;
  QVariant cellValue(const QString& row, int run) const;  // the stored number, when numeric
  QTableWidget* table() const { return m_table; }
  bool writeCsv(const QString& path, QString* error) const;

 private:
  void addRow(const QString& name, const std::vector<std::pair<QString, QVariant>>& cells);

  QTableWidget* m_table = nullptr;
  QLabel* m_message = nullptr;
};

}  // namespace pha::gui
