// Compare dock, Metrics tab: one column per run. Rows: the run's facts (project, variant,
// status, parameters, device, duration), then for each metric key its final value (at the last
// recorded step) and its best value (with the step), grouped: losses, accuracies, efficiency,
// optimizer, branch statistics, other (metricGroup). In the losses, accuracies and efficiency
// groups the best run of each row is marked (bold on a green tint) by the key's direction. A
// filter box keeps the rows whose name contains its text; clicking a group's header folds it
// (branch statistics start folded). Cells hold the stored number in Qt::UserRole; CSV export
// writes every row, folded or filtered or not. Compared seeded replicas of one group share one
// column (compare_groups.h): mean ± std (n) over the replicas, each replica's value in the tooltip.
#pragma once

#include <QSet>
#include <QStringList>
#include <QVariant>
#include <QWidget>
#include <memory>

#include "gui/compare/compare_data.h"
#include "gui/compare/compare_groups.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace pha::gui {

enum class MetricGroup { Losses, Accuracies, Efficiency, Optimizer, Branches, Other };
// The group a metric key belongs to, from its name ("val/loss" -> Losses, "branch_rms/l0/gss"
// -> Branches, "train/tokens_per_s" -> Efficiency).
MetricGroup metricGroup(const QString& key);
QString metricGroupTitle(MetricGroup group);
// Keys in table order: by group, then split (val, test, train, the rest), then name with
// numbers compared as numbers (l2 before l10).
QStringList orderedMetricKeys(QStringList keys);

class MetricsTab : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setFilter(const QString& text);

  QStringList rowNames() const;     // data rows, e.g. "status", "val/loss final", "val/loss best"
  QStringList groupTitles() const;  // group header rows in order, e.g. "Run", "Losses", ...
  QStringList visibleRowNames() const;  // data rows the filter and folding leave shown
  QString cellText(const QString& row, int run) const;
  QVariant cellValue(const QString& row, int run) const;  // the stored number, when numeric
  bool isBest(const QString& row, int run) const;         // marked as the row's best
  void setGroupFolded(const QString& title, bool folded);
  QTableWidget* table() const { return m_table; }
  bool writeCsv(const QString& path, QString* error) const;

 private:
  void addGroup(const QString& title);
  struct Cell {
    QString text;
    QVariant value;  // the number behind the text (a group: its mean), when numeric
    QString tip;
  };
  void addRow(const QString& name, const std::vector<Cell>& cells);
  void addSteadyRow(const LoadedRuns& list, const std::vector<CompareUnit>& units, const QString& key);
  void addMetricRows(const LoadedRuns& list, const std::vector<CompareUnit>& units);
  void markBest(int row, bool higherIsBetter);
  int rowOf(const QString& name) const;
  void applyVisibility();

  QTableWidget* m_table = nullptr;
  QLineEdit* m_filter = nullptr;
  QLabel* m_message = nullptr;
  QSet<QString> m_folded = {QStringLiteral("Branch statistics")};
};

}  // namespace pha::gui
