#include "gui/search/search_pareto.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>
#include <set>

#include "core/metric_table.h"
#include "widgets/export_menu.h"
#include "widgets/plot_export.h"  // widgets::padAxisRange
#include "widgets/plot_panel.h"
#include "gui/compare/run_costs.h"    // paretoFront
#include "gui/search/search_leaderboard.h"
#include "gui/search/search_state.h"

namespace pha::gui {

using search_runner::SearchTrialState;

SearchParetoChart::SearchParetoChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_panel = new widgets::PlotPanel(tr("first objective"), tr("second objective"), this);
  m_panel->setObjectName("searchPareto");
  layout->addWidget(m_panel, 1);
  widgets::installExportMenu(m_panel->plot(), "search-pareto");
  setSummary({});
}

QCustomPlot* SearchParetoChart::plot() const { return m_panel->plot(); }
QString SearchParetoChart::emptyMessage() const { return m_panel->emptyMessage(); }

// Points, front line and names in one pass, in QCustomPlot's stacking order.
void SearchParetoChart::setSummary(const search_runner::SearchSummary& s) {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  plot->clearItems();
  m_points = 0;
  m_front.clear();
  if (s.objectives.size() < 2) {
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
    m_panel->setEmptyMessage(
        s.objectives.empty()
            ? tr("The Pareto chart shows a search with two objectives.")
            : tr("This search has one objective (%1). With two, e.g. \"objective\": [\"%1\", \"params\"], trials are "
                 "promoted by non-dominated rank and this chart shows the trade-off.")
                  .arg(QString::fromStdString(s.objectives[0])));
    plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  std::set<int> brackets;
  for (const auto& t : s.trials) brackets.insert(t.bracket);
  std::vector<const SearchTrialState*> trials;
  std::vector<double> xs, ys;
  for (const SearchTrialState& t : s.trials) {
    const auto* p = latestMeasured(t);
    if (!p || p->mean.size() < 2 || !std::isfinite(p->mean[1])) continue;
    trials.push_back(&t);
    xs.push_back(p->mean[0]);
    ys.push_back(p->mean[1]);
  }
  m_points = static_cast<int>(trials.size());
  const std::vector<bool> front = paretoFront(xs, ys, core::higher_is_better(s.objectives[0]), core::higher_is_better(s.objectives[1]));
  std::vector<std::size_t> onFront;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const QString state = QString::fromStdString(trials[i]->state);
    QColor color = SearchLeaderboardModel::stateColor(state);
    if (!color.isValid()) color = palette().color(QPalette::WindowText);
    if (!front[i]) color.setAlpha(140);
    QCPGraph* g = plot->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(front[i] ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, color, front[i] ? 10 : 7));
    g->addData(xs[i], ys[i]);
    if (front[i]) {
      onFront.push_back(i);
      m_front << searchTrialId(*trials[i]);
      auto* text = new QCPItemText(plot);
      text->position->setCoords(xs[i], ys[i]);
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
      text->setPadding(QMargins(6, 0, 0, 4));
      text->setText(searchTrialName(*trials[i], s.searches.size() > 1, brackets.size() > 1));
    }
  }
  std::sort(onFront.begin(), onFront.end(), [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
  if (onFront.size() >= 2) {
    QCPGraph* line = plot->addGraph();
    line->setPen(QPen(palette().color(QPalette::WindowText), 1.0, Qt::DashLine));
    for (std::size_t i : onFront) line->addData(xs[i], ys[i]);
  }
  const auto axisName = [&](std::size_t k) {
    return tr("%1 (%2 is better)")
        .arg(QString::fromStdString(s.objectives[k]), core::higher_is_better(s.objectives[k]) ? tr("higher") : tr("lower"));
  };
  plot->xAxis->setLabel(axisName(0));
  plot->yAxis->setLabel(axisName(1));
  if (m_points > 0) {
    plot->rescaleAxes();
    widgets::padAxisRange(plot->xAxis, 0.15);
    widgets::padAxisRange(plot->yAxis, 0.15);
    m_panel->setEmptyMessage(tr("Each trial at its latest measured rung; filled and named: non-dominated (%1 of %2); "
                                "colour: state.")
                                 .arg(m_front.size())
                                 .arg(m_points));
  } else {
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
    m_panel->setEmptyMessage(tr("No trial has both objectives measured yet: points appear when the first rung is "
                                "decided."));
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace pha::gui
