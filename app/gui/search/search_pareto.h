// SearchParetoChart: a two-objective search's trade-off. Each trial with a measured rung is a
// point at its latest measured rung (first objective across, second up; means over the
// seeds), in its state's colour; the non-dominated trials (no other trial at least as good on
// both objectives, in each metric's direction, and better on one) are filled, named and joined
// by a dashed line. Trials stopped early are compared at the rung where they stopped, as the
// search compared them then: the chart says so. A one-objective search shows why it is empty.
#pragma once

#include <QStringList>
#include <QWidget>

#include "search_runner/search_job.h"

class QCustomPlot;

namespace pha::widgets {
class PlotPanel;
}

namespace pha::gui {

class SearchParetoChart : public QWidget {
  Q_OBJECT
 public:
  explicit SearchParetoChart(QWidget* parent = nullptr);

  void setSummary(const search_runner::SearchSummary& summary);
  int pointCount() const { return m_points; }
  QStringList frontTrials() const { return m_front; }  // searchTrialId of the non-dominated
  QString emptyMessage() const;
  QCustomPlot* plot() const;

 private:
  widgets::PlotPanel* m_panel = nullptr;
  int m_points = 0;
  QStringList m_front;
};

}  // namespace pha::gui
