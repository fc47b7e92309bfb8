#include "gui/search/rung_chart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/curve_plot.h"  // seriesColor
#include "widgets/export_menu.h"
#include "widgets/number_format.h"
#include "widgets/plot_panel.h"
#include "gui/search/rung_series.h"
#include "gui/search/search_state.h"
#include "widgets/series_colors.h"

namespace pha::gui {

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

// Lines, markers, names and the rung ticks are drawn in one pass, in the order QCustomPlot
// stacks them; what to draw (the lines, their order, style and markers) is rungSeries's
// (rung_series.h, Qt-free and unit-tested).
void RungChart::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  plot->clearItems();
  std::vector<std::string> selected;
  for (const QString& id : m_highlighted) selected.push_back(id.toStdString());
  const RungSeries series = rungSeries(m_summary, selected);
  m_lines = series.lines;
  m_stoppedMarkers = series.stopped_markers;
  for (const RungLine& l : m_lines) {
    QColor color = series.by_search ? widgets::modelColors().color(QString::fromStdString(l.search))
                                    : widgets::seriesColor(l.color_index);
    if (l.faded) color.setAlpha(80);
    const QString name = QString::fromStdString(l.name);
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    g->setPen(QPen(color, l.selected ? 3.5 : l.bold ? 2.6 : l.faded ? 1.0 : 1.4));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, l.faded ? 4 : 5));
    for (std::size_t i = 0; i < l.x.size(); ++i) g->addData(l.x[i], l.y[i]);
    if (l.end != RungLine::End::None) {  // where it stopped, or where it finished
      QCPGraph* end = plot->addGraph();
      end->setPen(Qt::NoPen);
      end->setLineStyle(QCPGraph::lsNone);
      end->setScatterStyle(l.end == RungLine::End::Stopped ? QCPScatterStyle(QCPScatterStyle::ssCross, color, 8)
                                                            : QCPScatterStyle(QCPScatterStyle::ssDisc, color, 9));
      end->addData(l.x.back(), l.y.back());
    }
    if (l.named) {
      auto* text = new QCPItemText(plot);
      text->position->setCoords(l.x.back(), l.y.back());
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      text->setPadding(QMargins(7, 0, 0, 0));
      text->setColor(QColor(color.red(), color.green(), color.blue()));
      text->setText(name);
    }
  }
  // A tick at every rung's resource on a log axis: the rungs are eta apart.
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (double resource : series.rungs) ticker->addTick(resource, widgets::formatCount(resource));
  plot->xAxis->setTicker(ticker);
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->xAxis->setLabel(m_summary.resource.empty() ? tr("budget") : tr("budget (%1 per rung run)").arg(QString::fromStdString(m_summary.resource)));
  plot->yAxis->setLabel(m_summary.objectives.empty() ? tr("objective")
                                                     : tr("%1 (mean over seeds)").arg(QString::fromStdString(m_summary.objectives[0])));
  if (!m_lines.empty()) {
    plot->rescaleAxes();
    const double lo = series.rungs.front(), hi = series.rungs.back();
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
  const RungLine* found = nullptr;
  std::size_t point = 0;
  for (const RungLine& l : m_lines)
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
                         .arg(QString::fromStdString(found->name), QString::fromStdString(found->state),
                              QString::fromStdString(found->label))
                         .arg(found->x[point], 0, 'g', 6)
                         .arg(QString::fromStdString(m_summary.resource))
                         .arg(QString::fromStdString(m_summary.objectives.empty() ? "" : m_summary.objectives[0]))
                         .arg(found->y[point], 0, 'f', 4),
                     plot);
}

}  // namespace pha::gui
