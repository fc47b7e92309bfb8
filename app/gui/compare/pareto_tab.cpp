#include "gui/compare/pareto_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/export_menu.h"
#include "widgets/plot_export.h"
#include "widgets/plot_panel.h"
#include "widgets/series_colors.h"

namespace pha::gui {

// Points can lie anywhere: the legend goes to the corner quadrant holding the fewest.
void ParetoTab::placeLegend(QCustomPlot* plot, const std::vector<Point>& points) {
  const double xMid = plot->xAxis->range().center(), yMid = plot->yAxis->range().center();
  const Qt::Alignment corners[] = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                   Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft};
  Qt::Alignment best = corners[0];
  std::size_t fewest = points.size() + 1;
  for (Qt::Alignment corner : corners) {
    const std::size_t n = static_cast<std::size_t>(std::count_if(points.begin(), points.end(), [&](const Point& p) {
      const bool right = p.cost > xMid, top = p.quality > yMid;
      return right == bool(corner & Qt::AlignRight) && top == bool(corner & Qt::AlignTop);
    }));
    if (n < fewest) {
      fewest = n;
      best = corner;
    }
  }
  plot->axisRect()->insetLayout()->setInsetAlignment(0, best);
}

ParetoTab::ParetoTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Quality"), this));
  m_quality = new QComboBox(this);
  m_quality->setObjectName("paretoQuality");
  // A narrow dock must stay possible: the box fits 14 characters, the list shows whole names.
  m_quality->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_quality->setMinimumContentsLength(14);
  top->addWidget(m_quality);
  top->addWidget(new QLabel(tr("against cost"), this));
  m_cost = new QComboBox(this);
  m_cost->setObjectName("paretoCost");
  m_cost->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_cost->setMinimumContentsLength(14);
  for (CostAxis a : {CostAxis::Parameters, CostAxis::FlopsPerToken, CostAxis::TokensPerSecond, CostAxis::PeakMemory})
    m_cost->addItem(costAxisName(a), static_cast<int>(a));
  top->addWidget(m_cost);
  auto* note = new QLabel(tr("Filled: Pareto-optimal (no other run is better on both axes)"), this);
  note->setEnabled(false);
  note->setWordWrap(true);  // wraps in a narrow dock instead of widening it
  top->addStretch(1);
  m_panel = new widgets::PlotPanel(costAxisName(CostAxis::Parameters), tr("best value"), this);
  m_panel->setObjectName("comparePareto");
  m_quality->setToolTip(tr("The metric whose best value is the quality axis"));
  m_cost->setToolTip(tr("Parameters and FLOPs come from each run's config; tokens/s and peak memory were measured"));
  top->addWidget(widgets::makeExportButton(m_panel->plot(), "compare-pareto", {}, this));
  widgets::installExportMenu(m_panel->plot(), "compare-pareto");
  layout->addLayout(top);
  layout->addWidget(m_panel, 1);
  layout->addWidget(note);
  m_sources = new QLabel(this);  // where each point's cost came from (measured or estimated, and how)
  m_sources->setObjectName("paretoSources");
  m_sources->setWordWrap(true);
  m_sources->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_sources);
  connect(m_cost, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(m_quality, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  redraw();
}

void ParetoTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  const QString previous = m_quality->currentText();
  {
    QSignalBlocker block(m_quality);
    m_quality->clear();
    if (m_runs) m_quality->addItems(unionOfKeys(*m_runs));
    int pick = m_quality->findText(previous);
    for (const char* k : {"val/loss", "val/ppl", "val/accuracy"})
      if (pick < 0) pick = m_quality->findText(k);
    m_quality->setCurrentIndex(std::max(0, pick));
  }
  redraw();
}

void ParetoTab::setCostAxis(CostAxis axis) { m_cost->setCurrentIndex(m_cost->findData(static_cast<int>(axis))); }
void ParetoTab::setQualityKey(const QString& key) { m_quality->setCurrentIndex(m_quality->findText(key)); }

// The points, the frontier and the labels are drawn in one pass over the
// same list, in the order QCustomPlot stacks them.
void ParetoTab::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  plot->clearItems();
  m_points.clear();
  const auto axis = static_cast<CostAxis>(m_cost->currentData().toInt());
  const QString key = m_quality->currentText();
  QStringList missing, sources;
  bool higherBetter = false;
  ModelColorPicker colors;
  const int runCount = m_runs ? static_cast<int>(m_runs->size()) : 0;
  for (int r = 0; r < runCount; ++r) {
    const LoadedRun& run = (*m_runs)[static_cast<std::size_t>(r)];
    if (!run.ok()) {
      missing << run.error;
      continue;
    }
    const CostValue cost = runCost(run, axis);
    auto best = run.best.find(key.toStdString());
    if (!cost.value) missing << tr("%1: no %2 (%3)").arg(run.label, costAxisName(axis), cost.source);
    if (best == run.best.end()) missing << tr("%1: no %2 values").arg(run.label, key.isEmpty() ? tr("metric") : key);
    if (!cost.value || best == run.best.end()) continue;
    higherBetter = best->second.higherIsBetter;
    m_points.push_back({run.label, *cost.value, best->second.value, false, r, colors.next(run), cost.source});
    sources << tr("%1: %2").arg(run.label, cost.source);
  }
  std::vector<double> xs, ys;
  for (const auto& p : m_points) {
    xs.push_back(p.cost);
    ys.push_back(p.quality);
  }
  const std::vector<bool> front = paretoFront(xs, ys, costHigherIsBetter(axis), higherBetter);
  for (std::size_t i = 0; i < m_points.size(); ++i) m_points[i].front = front[i];

  for (const auto& p : m_points) {
    QCPGraph* g = plot->addGraph();
    g->setName(p.label);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(p.front ? QCPScatterStyle::ssDisc : QCPScatterStyle::ssCircle, p.color, 10));
    g->addData(p.cost, p.quality);
    auto* text = new QCPItemText(plot);
    text->position->setCoords(p.cost, p.quality);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    text->setPadding(QMargins(6, 0, 0, 4));
    text->setText(p.label);
  }
  std::vector<const Point*> onFront;
  for (const auto& p : m_points)
    if (p.front) onFront.push_back(&p);
  std::sort(onFront.begin(), onFront.end(), [](const Point* a, const Point* b) { return a->cost < b->cost; });
  if (onFront.size() >= 2) {
    QCPGraph* line = plot->addGraph();
    line->setName(tr("Pareto front"));
    line->setPen(QPen(palette().color(QPalette::WindowText), 1.0, Qt::DashLine));
    for (const Point* p : onFront) line->addData(p->cost, p->quality);
  }
  plot->xAxis->setLabel(costAxisName(axis));
  plot->yAxis->setLabel(key.isEmpty() ? tr("best value") : tr("best %1").arg(key));
  if (!m_points.empty()) {
    plot->rescaleAxes();
    widgets::padAxisRange(plot->xAxis, 0.2);  // room for the point labels
    widgets::padAxisRange(plot->yAxis, 0.2);
  } else {  // nothing to show: no axis of another cost or metric stays
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
  }
  m_sources->setText(sources.isEmpty() ? QString() : tr("x values: %1").arg(sources.join("; ")));
  m_sources->setVisible(!sources.isEmpty());
  placeLegend(plot, m_points);
  widgets::showLegendIfAny(plot);
  if (runCount == 0) missing << tr("Select two or more saved runs to compare quality against cost.");
  else if (m_points.empty()) missing.prepend(tr("No run has both values, so there is nothing to plot:"));
  m_panel->setEmptyMessage(missing.join('\n'));
  plot->replot(QCustomPlot::rpQueuedReplot);
}

int ParetoTab::frontCount() const {
  return static_cast<int>(std::count_if(m_points.begin(), m_points.end(), [](const Point& p) { return p.front; }));
}

QStringList ParetoTab::pointLabels() const {
  QStringList labels;
  for (const auto& p : m_points) labels << p.label;
  return labels;
}

QString ParetoTab::emptyMessage() const { return m_panel->emptyMessage(); }
QCustomPlot* ParetoTab::plot() const { return m_panel->plot(); }

}  // namespace pha::gui
