// Compare dock, Pareto tab: quality (the best value of a chosen metric) against a chosen cost
// (parameters, FLOPs per token, tokens/s, peak memory), one labelled point per run, the
// Pareto-optimal runs joined by a line. Runs lacking either value are listed, not guessed.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "gui/compare/compare_data.h"
#include "gui/compare/run_costs.h"

class QComboBox;
class QLabel;
class QCustomPlot;

namespace pha::widgets {
class PlotPanel;
}  // namespace pha::widgets

namespace pha::gui {

class ParetoTab : public QWidget {
  Q_OBJECT
 public:
  explicit ParetoTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setCostAxis(CostAxis axis);
  void setQualityKey(const QString& key);

  int pointCount() const { return static_cast<int>(m_points.size()); }
  int frontCount() const;
  QStringList pointLabels() const;
  double pointCost(int i) const { return m_points.at(static_cast<std::size_t>(i)).cost; }
  QString pointSource(int i) const { return m_points.at(static_cast<std::size_t>(i)).source; }
  QColor pointColor(int i) const { return m_points.at(static_cast<std::size_t>(i)).color; }
  QString emptyMessage() const;
  QCustomPlot* plot() const;

 private:
  struct Point {
    QString label;
    double cost = 0.0;
    double quality = 0.0;
    bool front = false;
    int runIndex = 0;
    QColor color;
    QString source;  // where the cost came from (runCost's source)
  };
  void redraw();
  static void placeLegend(QCustomPlot* plot, const std::vector<Point>& points);

  std::shared_ptr<const LoadedRuns> m_runs;
  QLabel* m_sources = nullptr;
  QComboBox* m_cost = nullptr;
  QComboBox* m_quality = nullptr;
  widgets::PlotPanel* m_panel = nullptr;
  std::vector<Point> m_points;
};

}  // namespace pha::gui
