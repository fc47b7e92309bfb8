#include "widgets/curve_plot.h"

#include <algorithm>
#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "widgets/replot_throttle.h"
#include "widgets/smoothing.h"

namespace pha::widgets {

SeriesKind metricSeriesKind(const QString& key) {
  return key.startsWith(QLatin1String("val/")) || key.startsWith(QLatin1String("test/")) ? SeriesKind::Sparse
                                                                                           : SeriesKind::Dense;
}


QColor seriesColor(int index) {
  static const QColor colors[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                  QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75),
                                  QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                  QColor(23, 190, 207)};
  return colors[index % 10];
}

namespace {
// Four significant digits: 2.091, 12.35, 0.8731 (what the run table shows to the same precision).
QString valueText(double v) { return QString::number(v, 'g', 4); }
}  // namespace

CurvePlot::CurvePlot(const QString& yLabel, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Smoothing"), this));
  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setObjectName("smoothingSlider");
  m_slider->setRange(0, 99);
  m_slider->setValue(static_cast<int>(m_smoothing * 100));
  m_slider->setToolTip(tr("Debiased exponential moving average weight w (0 = raw), over every point of the "
                          "series with a value every step; evaluation series (a few points) are never smoothed"));
  controls->addWidget(m_slider, 1);
  m_sliderValue = new QLabel(this);
  m_sliderValue->setObjectName("smoothingValue");
  // Fixed width: the number changes while dragging, a re-layout would resize (redraw) the plot.
  m_sliderValue->setFixedWidth(m_sliderValue->fontMetrics().horizontalAdvance("0.00") + 6);
  m_sliderValue->setToolTip(m_slider->toolTip());
  controls->addWidget(m_sliderValue);
  controls->addWidget(new QLabel(tr("x:"), this));
  m_xCombo = new QComboBox(this);
  m_xCombo->setObjectName("xAxisCombo");
  m_xCombo->addItems({tr("step"), tr("tokens"), tr("wall time (s)")});
  controls->addWidget(m_xCombo);
  m_logY = new QCheckBox(tr("log y"), this);
  m_logY->setObjectName("logYCheck");
  controls->addWidget(m_logY);
  layout->addLayout(controls);

  m_plot = new QCustomPlot(this);
  // An explicit minimum: the plot's own size hint grows with a legend laid out in columns under
  // it, which would keep the dock from shrinking (the columns follow the width instead).
  m_plot->setMinimumSize(160, 120);
  m_plot->yAxis->setLabel(yLabel);
  m_plot->xAxis->setLabel(tr("step"));
  m_plot->legend->setVisible(false);
  m_plot->legend->setFont(QFont(font().family(), 8));
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // The final-value labels are placed in pixels, so after every layout (a resize, the legend
  // moving under the plot).
  connect(m_plot, &QCustomPlot::afterLayout, this, &CurvePlot::placeLabels);
  m_plot->setMouseTracking(true);
  m_plot->installEventFilter(this);
  // Solid lines as separate segments instead of one stroked polyline with joins: the stroker's
  // joins were most of a replot's time with ~2,000-point curves (docs/gui.md, responsiveness).
  m_plot->setPlottingHint(QCP::phFastPolylines, true);
  m_cursor = new QCPItemStraightLine(m_plot);
  m_cursor->setPen(QPen(QColor(128, 128, 128, 150), 1, Qt::DashLine));
  m_cursor->setSelectable(false);
  m_cursor->setVisible(false);
  m_throttle = new ReplotThrottle(m_plot);
  layout->addWidget(m_plot, 1);
  m_message = new QLabel(this);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->setWordWrap(true);
  m_message->hide();
  layout->addWidget(m_message);
  m_sliderValue->setText(smoothingText());

  connect(m_slider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
  connect(m_xCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setXAxis(static_cast<CurveX>(i)); });
  connect(m_logY, &QCheckBox::toggled, this, &CurvePlot::setLogY);
  connect(m_plot, &QCustomPlot::mouseMove, this, &CurvePlot::onMouseMove);
}

CurvePlot::Data& CurvePlot::ensure(const QString& name, QColor color) {
  auto it = m_series.find(name);
  if (it != m_series.end()) return *it;
  Data d;
  d.color = color.isValid() ? color : seriesColor(m_colorIndex++);
  d.kind = m_kinds.value(name, SeriesKind::Dense);
  d.raw = m_plot->addGraph();
  d.raw->removeFromLegend();
  d.smooth = m_plot->addGraph();
  d.smooth->setName(name);
  d.last = m_plot->addGraph();
  d.last->removeFromLegend();
  d.last->setLineStyle(QCPGraph::lsNone);
  d.last->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, d.color, d.color, 7));
  d.label = new QCPItemText(m_plot);
  d.label->position->setType(QCPItemPosition::ptPlotCoords);
  d.label->setColor(d.color.darker(130));
  d.label->setPadding(QMargins(4, 2, 4, 2));
  d.label->setSelectable(false);
  d.label->setVisible(false);
  // Above every curve (graphs added later would be drawn over it on the main layer), on a
  // background that keeps its digits readable where it crosses a curve or the grid.
  d.label->setLayer(m_plot->layer("legend"));
  QColor bg = palette().color(QPalette::Base);
  bg.setAlpha(215);
  d.label->setBrush(QBrush(bg));
  styleSeries(d);
  m_message->hide();
  m_order << name;
  return *m_series.insert(name, d);
}

void CurvePlot::styleSeries(Data& d) {
  QColor faint = d.color;
  faint.setAlpha(55);
  d.raw->setPen(QPen(faint, 1));
  d.smooth->setPen(QPen(d.color, 2));
  d.smooth->setLineStyle(QCPGraph::lsLine);
  d.smooth->setScatterStyle(d.kind == SeriesKind::Sparse
                                ? QCPScatterStyle(QCPScatterStyle::ssCircle, d.color, Qt::white, 6)
                                : QCPScatterStyle(QCPScatterStyle::ssNone));
}

void CurvePlot::setSeriesKind(const QString& name, SeriesKind kind) {
  m_kinds[name] = kind;
  auto it = m_series.find(name);
  if (it == m_series.end()) return;
  it->kind = kind;
  styleSeries(*it);
}

SeriesKind CurvePlot::seriesKind(const QString& name) const { return m_kinds.value(name, SeriesKind::Dense); }

void CurvePlot::setSeries(const QString& name, const std::vector<double>& steps, const std::vector<double>& tokens,
                          const std::vector<double>& wallSeconds, const std::vector<double>& values, QColor color) {
  Data& d = ensure(name, color);
  d.step = steps;
  d.tokens = tokens.size() == steps.size() ? tokens : steps;
  d.wall = wallSeconds.size() == steps.size() ? wallSeconds : steps;
  d.value = values;
  d.value.resize(d.step.size());
}

void CurvePlot::appendPoint(const QString& name, double step, double tokens, double wallSeconds, double value,
                            QColor color) {
  Data& d = ensure(name, color);
  d.step.push_back(step);
  d.tokens.push_back(tokens);
  d.wall.push_back(wallSeconds);
  d.value.push_back(value);
}

void CurvePlot::setBand(const QString& name, const std::vector<double>& low, const std::vector<double>& high) {
  auto it = m_series.find(name);
  if (it == m_series.end()) return;
  Data& d = *it;
  if (low.empty() || low.size() != d.value.size() || high.size() != d.value.size()) {
    if (d.bandLow) m_plot->removeGraph(d.bandLow);
    if (d.bandHigh) m_plot->removeGraph(d.bandHigh);
    d.bandLow = d.bandHigh = nullptr;
    d.low.clear();
    d.high.clear();
    return;
  }
  d.low = low;
  d.high = high;
  if (d.bandLow) return;
  // On the grid layer: behind every line of the main layer, above the grid.
  d.bandLow = m_plot->addGraph();
  d.bandHigh = m_plot->addGraph();
  QColor fill = d.color;
  fill.setAlpha(50);
  for (QCPGraph* g : {d.bandLow, d.bandHigh}) {
    g->setLayer(QStringLiteral("grid"));
    g->setPen(Qt::NoPen);
    g->removeFromLegend();
  }
  d.bandLow->setName(name + QStringLiteral(" (band low)"));
  d.bandHigh->setName(name + QStringLiteral(" (band high)"));
  d.bandHigh->setBrush(fill);
  d.bandHigh->setChannelFillGraph(d.bandLow);
}

void CurvePlot::removeSeries(const QString& name) {
  auto it = m_series.find(name);
  if (it == m_series.end()) return;
  m_plot->removeGraph(it->raw);
  m_plot->removeGraph(it->smooth);
  if (it->bandLow) m_plot->removeGraph(it->bandLow);
  if (it->bandHigh) m_plot->removeGraph(it->bandHigh);
  m_plot->removeGraph(it->last);
  m_plot->removeItem(it->label);
  m_series.erase(it);
  m_order.removeAll(name);
}

void CurvePlot::clearSeries() {
  for (const QString& name : QStringList(m_order)) removeSeries(name);
  m_colorIndex = 0;
  hideHover();
  // Nothing of the curves before stays: the axes go back to their empty range, the legend's
  // empty box goes, and the empty message (what will fill the plot) comes back.
  m_plot->xAxis->setRange(0, 5);
  m_plot->yAxis->setRange(0, 5);
  m_plot->legend->setVisible(false);
  m_message->setVisible(!m_message->text().isEmpty());
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

const std::vector<double>& CurvePlot::xs(const Data& d) const {
  switch (m_x) {
    case CurveX::Tokens: return d.tokens;
    case CurveX::WallTime: return d.wall;
    default: return d.step;
  }
}

void CurvePlot::rebuild(Data& d) {
  const std::size_t maxPoints = static_cast<std::size_t>(std::max(200, 2 * m_plot->width()));
  const bool dense = d.kind == SeriesKind::Dense;
  d.smoothed = dense ? debiasedEma(d.value, m_smoothing) : std::vector<double>();
  const Series raw = thinMinMax(Series{xs(d), d.value}, maxPoints);
  const Series bold = dense ? thinMinMax(Series{xs(d), d.smoothed}, maxPoints) : raw;
  if (dense)
    d.raw->setData(QVector<double>(raw.x.begin(), raw.x.end()), QVector<double>(raw.y.begin(), raw.y.end()), true);
  else
    d.raw->data()->clear();
  d.smooth->setData(QVector<double>(bold.x.begin(), bold.x.end()), QVector<double>(bold.y.begin(), bold.y.end()),
                    true);
  d.raw->setVisible(dense && m_smoothing > 0.0);
  if (d.bandLow) rebuildBand(d, maxPoints);
  // The final value: the last finite raw point (a diverged run ends in NaN).
  int last = static_cast<int>(d.value.size()) - 1;
  while (last >= 0 && !std::isfinite(d.value[static_cast<std::size_t>(last)])) --last;
  d.last->data()->clear();
  d.label->setVisible(last >= 0);
  if (last < 0) return;
  const double x = xs(d)[static_cast<std::size_t>(last)], y = d.value[static_cast<std::size_t>(last)];
  d.last->addData(x, y);
  d.label->position->setCoords(x, y);
  d.endX = x;
  d.endY = y;
  d.label->setText(valueText(y));
}

// The band's edges smoothed like the series, then thinned on one shared x per bucket (the
// lower edge's min and the upper edge's max there), so the fill never narrows when zoomed out.
void CurvePlot::rebuildBand(Data& d, std::size_t maxPoints) {
  const std::vector<double>& x = xs(d);
  const std::vector<double> lo = debiasedEma(d.low, m_smoothing), hi = debiasedEma(d.high, m_smoothing);
  QVector<double> bx, blo, bhi;
  const std::size_t n = std::min({x.size(), lo.size(), hi.size()});
  const std::size_t buckets = n <= maxPoints ? n : maxPoints;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t first = b * n / buckets, last = std::max(first + 1, (b + 1) * n / buckets);
    double l = lo[first], h = hi[first];
    for (std::size_t i = first; i < last; ++i) {
      l = std::min(l, lo[i]);
      h = std::max(h, hi[i]);
    }
    bx.push_back(x[first]);
    blo.push_back(l);
    bhi.push_back(h);
  }
  d.bandLow->setData(bx, blo, true);
  d.bandHigh->setData(bx, bhi, true);
}

void CurvePlot::replotLater() {
  for (auto& d : m_series) rebuild(d);
  m_plot->legend->setVisible(!m_series.isEmpty());
  if (!m_series.isEmpty()) {
    rescale();
    placeLabels();
    placeLegend();
    m_message->hide();
  }
  m_throttle->request();
}

// Up to kInsetLegendItems entries (and in a plot 260 px high or more) the legend sits inside the plot, in a left corner (the right
// edge holds the final-value labels): the upper one unless more of the drawn points lie in the
// upper left quarter (rising curves, accuracy), else the lower one (falling losses). With more
// entries (nine runs compared, each with train and validation curves) it would cover the
// curves: it goes under the plot, in as many columns as its widest entry allows.
constexpr int kInsetLegendItems = 3;
constexpr int kShortPlot = 260;

bool CurvePlot::legendOutside() const {
  return !m_plot->axisRect()->insetLayout()->elements(false).contains(m_plot->legend);
}

void CurvePlot::placeLegend() {
  QCPLegend* legend = m_plot->legend;
  QCPLayoutInset* inset = m_plot->axisRect()->insetLayout();
  int entries = 0;  // itemCount() counts the empty cells of a grid laid out in columns too
  for (int i = 0; i < legend->itemCount(); ++i) entries += legend->item(i) ? 1 : 0;
  // A short plot (the live view: ~110-130 px at 1600 x 1000 and 1280 x 720) has no corner the
  // box would not cover: its legend goes under it, in one row.
  const bool outside = entries > kInsetLegendItems || m_plot->height() < kShortPlot;
  if (outside && !legendOutside()) {
    inset->take(legend);
    inset->simplify();
    m_plot->plotLayout()->addElement(1, 0, legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setMargins(QMargins(4, 2, 4, 2));
  } else if (!outside && legendOutside()) {
    m_plot->plotLayout()->take(legend);
    m_plot->plotLayout()->simplify();
    inset->addElement(legend, Qt::AlignTop | Qt::AlignLeft);
  }
  if (outside) {
    // Compact rows under the plot: the default icon (32 x 18) made each entry 21 px high, and six
    // runs' legend took more of a 1280 x 720 Compare dock than their curves.
    legend->setIconSize(22, 10);
    legend->setRowSpacing(0);
    int widest = 0;
    const QFontMetrics fm(legend->font());
    for (int i = 0; i < legend->itemCount(); ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
        widest = std::max(widest, fm.horizontalAdvance(item->plottable()->name()));
    const int entry = widest + legend->iconSize().width() + legend->iconTextPadding() + 16;
    const int columns = std::max(1, (m_plot->width() - 20) / std::max(1, entry));
    if (legend->wrap() != columns || legend->fillOrder() != QCPLayoutGrid::foColumnsFirst) {
      legend->setWrap(columns);
      legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
    return;
  }
  const auto order = QCPLayoutGrid::foRowsFirst;
  if (legend->wrap() != 0 || legend->fillOrder() != order) {
    legend->setWrap(0);
    legend->setFillOrder(order, true);
  }
  const QCPRange xr = m_plot->xAxis->range(), yr = m_plot->yAxis->range();
  const double xMid = xr.center(), yMid = m_plot->yAxis->scaleType() == QCPAxis::stLogarithmic
                                              ? std::sqrt(std::max(1e-300, yr.lower) * std::max(1e-300, yr.upper))
                                              : yr.center();
  long upper = 0, lower = 0;
  for (const auto& d : m_series) {
    const std::vector<double>& x = xs(d);
    const std::vector<double>& y = d.kind == SeriesKind::Dense && !d.smoothed.empty() ? d.smoothed : d.value;
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      if (x[i] > xMid || !std::isfinite(y[i])) continue;
      (y[i] > yMid ? upper : lower) += 1;
    }
  }
  inset->setInsetAlignment(0, (upper <= lower ? Qt::AlignTop : Qt::AlignBottom) | Qt::AlignLeft);
}

// Final-value labels sit left of their point, above it when there is room. Labels of series
// ending near one another (within 80 px) are spread apart vertically so that none overlaps
// another and all stay inside the plot; a group that cannot fit in the plot's height (more
// than about a dozen series ending together) shows no labels: the hover readout and the
// legend give the values, and Compare's Metrics tab lists them.
void CurvePlot::placeLabels() {
  std::vector<Data*> shown;
  for (auto& d : m_series)
    if (!d.label->text().isEmpty() && !d.value.empty()) {
      int last = static_cast<int>(d.value.size()) - 1;
      while (last >= 0 && !std::isfinite(d.value[static_cast<std::size_t>(last)])) --last;
      d.label->setVisible(last >= 0);
      if (last >= 0) shown.push_back(&d);
    }
  if (shown.empty()) return;
  const QRect rect = m_plot->axisRect()->rect();
  const double h = QFontMetrics(shown.front()->label->font()).height() + 4;
  struct Placed {
    Data* d;
    double px, py, top;
  };
  std::vector<Placed> all;
  for (Data* d : shown)
    all.push_back({d, m_plot->xAxis->coordToPixel(d->endX), m_plot->yAxis->coordToPixel(d->endY), 0});
  std::sort(all.begin(), all.end(), [](const Placed& a, const Placed& b) { return a.px < b.px; });
  // Groups of labels whose points are within 80 px of each other horizontally.
  for (std::size_t begin = 0; begin < all.size();) {
    std::size_t end = begin + 1;
    while (end < all.size() && all[end].px - all[end - 1].px < 80) ++end;
    std::sort(all.begin() + static_cast<long>(begin), all.begin() + static_cast<long>(end),
              [](const Placed& a, const Placed& b) { return a.py < b.py; });
    const bool fits = rect.height() <= 0 || static_cast<double>(end - begin) * h <= rect.height();  // 0: not laid out yet
    // Downwards from each label's wish (its bottom at its point), then back up from the bottom.
    for (std::size_t i = begin; i < end; ++i) {
      all[i].top = std::max(all[i].py - h, static_cast<double>(rect.top()));
      if (i > begin) all[i].top = std::max(all[i].top, all[i - 1].top + h);
    }
    for (std::size_t i = end; i-- > begin;) {
      const double limit = i + 1 < end ? all[i + 1].top - h : rect.bottom() - h;
      all[i].top = std::min(all[i].top, limit);
    }
    for (std::size_t i = begin; i < end; ++i) {
      QCPItemText* label = all[i].d->label;
      label->setVisible(fits);
      label->setPadding(QMargins(4, 2, 4, 2));
      label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
      label->position->setCoords(all[i].d->endX, m_plot->yAxis->pixelToCoord(all[i].top));
    }
    begin = end;
  }
}

// Fits the axes to the data, with a margin above and below so that final points and their
// labels are not on the frame; one point (the first step of a live run) gets a small span
// instead of QCustomPlot's arbitrary one.
void CurvePlot::rescale() {
  m_plot->rescaleAxes();
  QCPRange keys, values;
  bool any = false;
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    bool found = false;
    const QCPRange k = m_plot->graph(i)->getKeyRange(found);
    if (!found) continue;
    const QCPRange v = m_plot->graph(i)->getValueRange(found);
    keys = any ? QCPRange(std::min(keys.lower, k.lower), std::max(keys.upper, k.upper)) : k;
    values = any ? QCPRange(std::min(values.lower, v.lower), std::max(values.upper, v.upper)) : v;
    any = true;
  }
  if (!any) return;
  auto narrow = [](const QCPRange& data) { return data.size() <= 1e-12 * std::max(1.0, std::abs(data.center())); };
  if (narrow(keys)) {
    const double half = std::max(std::abs(keys.center()) * 0.05, 1.0);
    m_plot->xAxis->setRange(keys.center() - half, keys.center() + half);
  } else {
    m_plot->xAxis->setRange(keys.lower, keys.upper + 0.015 * keys.size());  // the final dot inside the frame
  }
  if (narrow(values)) {
    const double half = std::max(std::abs(values.center()) * 0.05, 1e-3);
    m_plot->yAxis->setRange(values.center() - half, values.center() + half);
  } else if (m_plot->yAxis->scaleType() == QCPAxis::stLogarithmic) {
    if (values.lower > 0) m_plot->yAxis->setRange(values.lower / 1.12, values.upper * 1.12);
  } else {
    const double pad = 0.08 * values.size();
    m_plot->yAxis->setRange(values.lower - pad, values.upper + pad);
  }
}

void CurvePlot::setSmoothing(double weight) {
  m_smoothing = std::clamp(weight, 0.0, 0.99);
  if (m_slider->value() != static_cast<int>(m_smoothing * 100 + 0.5)) {
    QSignalBlocker block(m_slider);
    m_slider->setValue(static_cast<int>(m_smoothing * 100 + 0.5));
  }
  m_sliderValue->setText(smoothingText());
  replotLater();
}

QString CurvePlot::smoothingText() const { return QString::number(m_smoothing, 'f', 2); }

void CurvePlot::setXAxis(CurveX x) {
  m_x = x;
  if (m_xCombo->currentIndex() != static_cast<int>(x)) {
    QSignalBlocker block(m_xCombo);
    m_xCombo->setCurrentIndex(static_cast<int>(x));
  }
  m_plot->xAxis->setLabel(m_xCombo->currentText());
  replotLater();
}

void CurvePlot::setLogY(bool on) {
  if (m_logY->isChecked() != on) {
    QSignalBlocker block(m_logY);
    m_logY->setChecked(on);
  }
  m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  m_plot->yAxis->setTicker(on ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                              : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  replotLater();
}

void CurvePlot::setYLabel(const QString& label) { m_plot->yAxis->setLabel(label); }

QString CurvePlot::yLabel() const { return m_plot->yAxis->label(); }

void CurvePlot::setEmptyMessage(const QString& message) {
  m_message->setText(message);
  m_message->setVisible(!message.isEmpty() && m_series.isEmpty());
}

int CurvePlot::pointCount(const QString& name) const {
  auto it = m_series.find(name);
  return it == m_series.end() ? 0 : static_cast<int>(it->value.size());
}

namespace {

std::vector<double> valuesOf(const QCPGraph* graph) {
  std::vector<double> out;
  if (!graph) return out;
  for (auto p = graph->data()->constBegin(); p != graph->data()->constEnd(); ++p) out.push_back(p->value);
  return out;
}

}  // namespace

std::vector<double> CurvePlot::drawnBandLow(const QString& name) const {
  auto it = m_series.find(name);
  return it == m_series.end() ? std::vector<double>{} : valuesOf(it->bandLow);
}

std::vector<double> CurvePlot::drawnBandHigh(const QString& name) const {
  auto it = m_series.find(name);
  return it == m_series.end() ? std::vector<double>{} : valuesOf(it->bandHigh);
}

std::vector<double> CurvePlot::drawnSmoothed(const QString& name) const {
  std::vector<double> out;
  auto it = m_series.find(name);
  if (it == m_series.end()) return out;
  for (auto p = it->smooth->data()->constBegin(); p != it->smooth->data()->constEnd(); ++p) out.push_back(p->value);
  return out;
}

QString CurvePlot::finalLabel(const QString& name) const {
  auto it = m_series.find(name);
  return it == m_series.end() || !it->label->visible() ? QString() : it->label->text();
}

}  // namespace pha::widgets
