// Compare dock, Length tab: length generalization, a metric against the evaluated sequence
// length T (evals rows with seq_len > 0), one curve per run, for a chosen task and metric.
// Where a run evaluated the same T at several steps, the latest step counts.
#pragma once

#include <QWidget>
#include <memory>

#include "gui/compare/compare_data.h"

class QComboBox;
class QCustomPlot;

namespace pha::widgets {
class PlotPanel;
}  // namespace pha::widgets

namespace pha::gui {

class LengthTab : public QWidget {
  Q_OBJECT
 public:
  explicit LengthTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setSeries(const QString& task, const QString& metric);

  int curveCount() const;
  int pointCount(int curve) const;
  QString emptyMessage() const;
  QCustomPlot* plot() const;

 private:
  void redraw();

  std::shared_ptr<const LoadedRuns> m_runs;
  QComboBox* m_series = nullptr;  // "task · metric", data: QStringList{task, metric}
  widgets::PlotPanel* m_panel = nullptr;
};

}  // namespace pha::gui
