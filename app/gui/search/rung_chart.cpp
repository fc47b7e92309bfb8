#include "rung_chart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <set>

#include "curve_plot.h"  // seriesColor
#include "export_menu.h"
#include "number_format.h"
#include "plot_panel.h"
#include "search_state.h"
#include "series_colors.h"

namespace pha::gui {

using search_runner::SearchTrialState;

RungChart::RungChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_panel = new widgets::PlotPanel(tr("budget"), tr("objective"), this);
  m_panel->setObjectName("searchRungChart");
  m_panel->plot()->setMinimumHeight(160);
  layout->addWidget(m_panel, 1);
  widgets::installExportMenu(m_panel->plot(), "search-rungs");
  m_panel->plot()->setMouseTracking(true);
  connect(m_panel->plot(), &QCustomPlot::mouseMove, this, &RungChart::hover);
  clear(tr("The rung chart fills as the search decides its rungs."));
}

QCustomPlot* RungChart::plot() const { return m_panel->plot(); }
QString RungChart::emptyMessage() const { return m_panel->emptyMessage(); }

void RungChart::clear(const QString& message) {
  m_summary = {};
  m_lines.clear();
  redraw();
  m_panel->setEmptyMessage(message);
}

void RungChart::setSummary(const search_runner::SearchSummary& summary) {
  m_summary = summary;
  redraw();
}

void RungChart::setHighlighted(const QStringList& trialIds) {
  if (trialIds == m_highlighted) return;
  m_highlighted = trialIds;
  redraw();
}

// Lines, markers, names and the rung ticks are drawn in one pass, in the
// order QCustomPlot stacks them (faded first, bold and selected on top).
void RungChart::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  plot->clearItems();
  m_lines.clear();
  m_stoppedMarkers = 0;
  const bool manySearches = m_summary.searches.size() > 1;
  std::set<int> brackets;
  for (const auto& t : m_summary.trials) brackets.insert(t.bracket);
  std::set<double> rungs;  // every rung's resource (the ticks)
  for (const SearchTrialState& t : m_summary.trials) {
    Line line;
    line.trial = searchTrialId(t);
    line.name = searchTrialName(t, manySearches, brackets.size() > 1);
    line.label = QString::fromStdString(t.label);
    line.state = QString::fromStdString(t.state);
    for (const auto& p : t.history) {
      rungs.insert(p.resource);
      if (p.mean.empty() || !std::isfinite(p.mean[0])) continue;
      line.x.push_back(p.resource);
      line.y.push_back(p.mean[0]);
    }
    line.bold = line.state == "finished" || line.state == "promoted";
    if (!line.x.empty()) m_lines.push_back(std::move(line));
  }
  // Faded lines first, then plain, bold and selected ones over them.
  const auto layer = [this](const Line& l) {
    if (m_highlighted.contains(l.trial)) return 3;
    if (l.bold) return 2;
    return l.state == "stopped" || l.state == "failed" ? 0 : 1;
  };
  std::stable_sort(m_lines.begin(), m_lines.end(), [&](const Line& a, const Line& b) { return layer(a) < layer(b); });
  std::map<QString, int> trialIndex;
  for (const SearchTrialState& t : m_summary.trials) trialIndex[searchTrialId(t)] = t.trial + 7 * t.bracket;
  for (const Line& l : m_lines) {
    const SearchTrialState* t = nullptr;
    for (const auto& x : m_summary.trials)
      if (searchTrialId(x) == l.trial) t = &x;
    QColor color = manySearches && t ? widgets::modelColors().color(QString::fromStdString(t->search))
                                     : widgets::seriesColor(trialIndex[l.trial]);
    const bool selected = m_highlighted.contains(l.trial);
    const bool faded = !selected && (l.state == "stopped" || l.state == "failed");
    if (faded) color.setAlpha(80);
    QCPGraph* g = plot->addGraph();
    g->setName(l.name);
    g->setPen(QPen(color, selected ? 3.5 : l.bold ? 2.6 : faded ? 1.0 : 1.4));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, faded ? 4 : 5));
    for (std::size_t i = 0; i < l.x.size(); ++i) g->addData(l.x[i], l.y[i]);
    const bool stopped = l.state == "stopped" || l.state == "failed";
    if (stopped || l.state == "finished") {  // where it stopped, or where it finished
      QCPGraph* end = plot->addGraph();
      end->setPen(Qt::NoPen);
      end->setLineStyle(QCPGraph::lsNone);
      end->setScatterStyle(stopped ? QCPScatterStyle(QCPScatterStyle::ssCross, color, 8)
                                   : QCPScatterStyle(QCPScatterStyle::ssDisc, color, 9));
      end->addData(l.x.back(), l.y.back());
      m_stoppedMarkers += stopped ? 1 : 0;
    }
    if (selected || l.bold) {
      auto* text = new QCPItemText(plot);
      text->position->setCoords(l.x.back(), l.y.back());
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      text->setPadding(QMargins(7, 0, 0, 0));
      text->setColor(QColor(color.red(), color.green(), color.blue()));
      text->setText(l.name);
    }
  }
  // A tick at every rung's resource on a log axis: the rungs are eta apart.
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (double resource : rungs) ticker->addTick(resource, widgets::formatCount(resource));
  plot->xAxis->setTicker(ticker);
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->xAxis->setLabel(m_summary.resource.empty() ? tr("budget") : tr("budget (%1 per rung run)").arg(QString::fromStdString(m_summary.resource)));
  plot->yAxis->setLabel(m_summary.objectives.empty() ? tr("objective")
                                                     : tr("%1 (mean over seeds)").arg(QString::fromStdString(m_summary.objectives[0])));
  if (!m_lines.empty()) {
    plot->rescaleAxes();
    const double lo = *rungs.begin(), hi = *rungs.rbegin();
    plot->xAxis->setRange(lo / 1.25, hi * (lo < hi ? 1.6 : 2.0));  // room for the names at the end
    const QCPRange y = plot->yAxis->range();
    const double pad = std::max(1e-6, (y.upper - y.lower) * 0.08);
    plot->yAxis->setRange(y.lower - pad, y.upper + pad);
    m_panel->setEmptyMessage({});
  } else {
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
    m_panel->setEmptyMessage(m_summary.trials.empty() ? tr("The rung chart fills as the search decides its rungs.")
                                                      : tr("No rung decided yet: each trial's line starts when its "
                                                           "first rung is decided (every run of the rung has ended)."));
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void RungChart::hover(QMouseEvent* event) {
  QCustomPlot* plot = m_panel->plot();
  const QPointF at = event->position();
  double best = 12.0 * 12.0;
  const Line* found = nullptr;
  std::size_t point = 0;
  for (const Line& l : m_lines)
    for (std::size_t i = 0; i < l.x.size(); ++i) {
      const double px = plot->xAxis->coordToPixel(l.x[i]), py = plot->yAxis->coordToPixel(l.y[i]);
      const double d = (px - at.x()) * (px - at.x()) + (py - at.y()) * (py - at.y());
      if (d < best) {
        best = d;
        found = &l;
        point = i;
      }
    }
  if (!found) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(event->globalPosition().toPoint(),
                     tr("%1 (%2)\n%3\n%4 %5: %6 %7")
                         .arg(found->name, found->state, found->label)
                         .arg(found->x[point], 0, 'g', 6)
                         .arg(QString::fromStdString(m_summary.resource))
                         .arg(QString::fromStdString(m_summary.objectives.empty() ? "" : m_summary.objectives[0]))
                         .arg(found->y[point], 0, 'f', 4),
                     plot);
}

}  // namespace pha::gui
