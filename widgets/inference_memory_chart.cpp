#include "widgets/inference_memory_chart.h"

#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/plot_panel.h"
#include "widgets/series_colors.h"

namespace pha::widgets {

namespace {
constexpr int kParts = 4;
const char* const kPartNames[kParts] = {"weights", "KV cache", "GSS state", "rest"};

}  // namespace

QColor InferenceMemoryChart::partColor(int part) {
  // Not the models' palette (models are the rows here): weights dark blue-grey, the two decode
  // states in the colours that tell them apart elsewhere, the unpredicted rest light grey.
  static const QColor colors[kParts] = {QColor(86, 101, 125), QColor(213, 94, 0), QColor(0, 158, 115),
                                        QColor(190, 190, 190)};
  return colors[std::clamp(part, 0, kParts - 1)];
}

InferenceMemoryChart::InferenceMemoryChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_panel = new PlotPanel(tr("MiB"), QString(), this);
  layout->addWidget(m_panel);
  QCustomPlot* p = m_panel->plot();
  p->setInteractions({});  // a few bars: nothing to pan or zoom
  p->legend->setFont(QFont(font().family(), 8));
  // The panel's legend row names the parts; exported images draw this one.
  p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  p->yAxis->setRangeReversed(true);  // the first model on top, as in the table
  p->setMouseTracking(true);
  connect(p, &QCustomPlot::mouseMove, this, &InferenceMemoryChart::hover);
  setBars({});
}

QCustomPlot* InferenceMemoryChart::plot() const { return m_panel->plot(); }

void InferenceMemoryChart::setBars(std::vector<MemoryBar> bars, const QString& emptyMessage) {
  m_bars = std::move(bars);
  QCustomPlot* p = m_panel->plot();
  p->clearPlottables();
  p->clearItems();
  QCPBars* below = nullptr;
  std::vector<QCPBars*> parts;
  for (int k = 0; k < kParts; ++k) {
    auto* b = new QCPBars(p->yAxis, p->xAxis);  // keys (models) on the vertical axis
    b->setName(tr(kPartNames[k]));
    b->setBrush(partColor(k));
    b->setPen(QPen(partColor(k).darker(130), 1));
    b->setWidth(0.6);
    if (below) b->moveAbove(below);
    below = b;
    parts.push_back(b);
  }
  QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
  double most = 0;
  for (std::size_t i = 0; i < m_bars.size(); ++i) {
    const MemoryBar& bar = m_bars[i];
    const double key = static_cast<double>(i + 1);
    const double values[kParts] = {bar.weights, bar.kvCache, bar.gssState, bar.rest};
    for (int k = 0; k < kParts; ++k) parts[static_cast<std::size_t>(k)]->addData(key, values[k]);
    ticks->addTick(key, bar.model);
    most = std::max(most, bar.total());
    auto* label = new QCPItemText(p);
    label->position->setAxes(p->xAxis, p->yAxis);
    label->position->setCoords(bar.total(), key);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    label->setPadding(QMargins(4, 0, 0, 0));
    label->setText(QString::number(bar.total(), 'f', 1));  // the axis says MiB
    label->setFont(QFont(font().family(), 8));
  }
  p->yAxis->setTicker(ticks);
  p->yAxis->setTickLength(0, 0);
  // Room for three bars at least: one bar alone would fill the plot's height.
  p->yAxis->setRange(0.4, static_cast<double>(std::max<std::size_t>(m_bars.size(), 3)) + 0.6);
  p->xAxis->setRange(0, most > 0 ? most * 1.3 : 1.0);  // room for the totals at the bars' ends
  const bool empty = m_bars.empty();
  p->setVisible(!empty);
  m_panel->setEmptyMessage(empty ? emptyMessage : QString());
  p->legend->setVisible(false);
  replotIfSized(p);
}

QString InferenceMemoryChart::tooltipAt(const QPointF& pixel) const {
  const QCustomPlot* p = m_panel->plot();
  const double key = p->yAxis->pixelToCoord(pixel.y());
  const double value = p->xAxis->pixelToCoord(pixel.x());
  const long i = std::lround(key) - 1;
  if (i < 0 || i >= static_cast<long>(m_bars.size()) || std::abs(key - std::round(key)) > 0.35) return {};
  const MemoryBar& bar = m_bars[static_cast<std::size_t>(i)];
  if (value < 0 || value > bar.total() * 1.02 + 1e-9) return {};
  return bar.tooltip;
}

void InferenceMemoryChart::hover(QMouseEvent* event) {
  const QString text = tooltipAt(event->position());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), text, m_panel->plot());
}

}  // namespace pha::widgets
