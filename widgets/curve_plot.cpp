#include "curve_plot.h"

#include <algorithm>
#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "replot_throttle.h"
#include "smoothing.h"

namespace pha::widgets {

QColor seriesColor(int index) {
  static const QColor colors[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                  QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75),
                                  QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                  QColor(23, 190, 207)};
  return colors[index % 10];
}

CurvePlot::CurvePlot(const QString& yLabel, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Smoothing"), this));
  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setObjectName("smoothingSlider");
  m_slider->setRange(0, 99);
  m_slider->setValue(static_cast<int>(m_smoothing * 100));
  m_slider->setToolTip(tr("Debiased exponential moving average weight (0 = raw)"));
  controls->addWidget(m_slider, 1);
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
  m_plot->yAxis->setLabel(yLabel);
  m_plot->xAxis->setLabel(tr("step"));
  m_plot->legend->setVisible(false);
  m_plot->legend->setFont(QFont(font().family(), 8));
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // Solid lines as separate segments instead of one stroked polyline with joins: the stroker's
  // joins were most of a replot's time with ~2,000-point curves (docs/gui.md, responsiveness).
  m_plot->setPlottingHint(QCP::phFastPolylines, true);
  m_throttle = new ReplotThrottle(m_plot);
  layout->addWidget(m_plot, 1);
  m_message = new QLabel(this);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->setWordWrap(true);
  m_message->hide();
  layout->addWidget(m_message);

  connect(m_slider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
  connect(m_xCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setXAxis(static_cast<CurveX>(i)); });
  connect(m_logY, &QCheckBox::toggled, this, &CurvePlot::setLogY);
}

CurvePlot::Data& CurvePlot::ensure(const QString& name, QColor color) {
  auto it = m_series.find(name);
  if (it != m_series.end()) return *it;
  Data d;
  d.color = color.isValid() ? color : seriesColor(m_colorIndex++);
  d.raw = m_plot->addGraph();
  QColor faint = d.color;
  faint.setAlpha(55);
  d.raw->setPen(QPen(faint, 1));
  d.raw->removeFromLegend();
  d.smooth = m_plot->addGraph();
  d.smooth->setPen(QPen(d.color, 2));
  d.smooth->setName(name);
  m_message->hide();
  return *m_series.insert(name, d);
}

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

void CurvePlot::removeSeries(const QString& name) {
  auto it = m_series.find(name);
  if (it == m_series.end()) return;
  m_plot->removeGraph(it->raw);
  m_plot->removeGraph(it->smooth);
  m_series.erase(it);
}

void CurvePlot::clearSeries() {
  m_plot->clearGraphs();
  m_series.clear();
  m_colorIndex = 0;
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
  const Series raw = thinMinMax(Series{xs(d), d.value}, maxPoints);
  const Series smooth = thinMinMax(Series{xs(d), debiasedEma(d.value, m_smoothing)}, maxPoints);
  d.raw->setData(QVector<double>(raw.x.begin(), raw.x.end()), QVector<double>(raw.y.begin(), raw.y.end()), true);
  d.smooth->setData(QVector<double>(smooth.x.begin(), smooth.x.end()),
                    QVector<double>(smooth.y.begin(), smooth.y.end()), true);
  d.raw->setVisible(m_smoothing > 0.0);
}

void CurvePlot::replotLater() {
  for (auto& d : m_series) rebuild(d);
  m_plot->legend->setVisible(!m_series.isEmpty());
  if (!m_series.isEmpty()) {
    m_plot->rescaleAxes();
    // One point (the first step of a live run) gives an empty range, which QCustomPlot would
    // widen to an arbitrary span around it: show a small span instead.
    // (QCustomPlot keeps the previous span around a single value.)
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
    auto widen = [](QCPAxis* axis, const QCPRange& data, double minHalf) {
      if (data.size() > 1e-12 * std::max(1.0, std::abs(data.center()))) return;
      const double half = std::max(std::abs(data.center()) * 0.05, minHalf);
      axis->setRange(data.center() - half, data.center() + half);
    };
    if (any) {
      widen(m_plot->xAxis, keys, 1.0);
      widen(m_plot->yAxis, values, 1e-3);
    }
    m_message->hide();
  }
  m_throttle->request();
}

void CurvePlot::setSmoothing(double weight) {
  m_smoothing = std::clamp(weight, 0.0, 0.99);
  if (m_slider->value() != static_cast<int>(m_smoothing * 100 + 0.5)) {
    QSignalBlocker block(m_slider);
    m_slider->setValue(static_cast<int>(m_smoothing * 100 + 0.5));
  }
  replotLater();
}

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

void CurvePlot::setEmptyMessage(const QString& message) {
  m_message->setText(message);
  m_message->setVisible(!message.isEmpty() && m_series.isEmpty());
}

int CurvePlot::pointCount(const QString& name) const {
  auto it = m_series.find(name);
  return it == m_series.end() ? 0 : static_cast<int>(it->value.size());
}

std::vector<double> CurvePlot::drawnSmoothed(const QString& name) const {
  std::vector<double> out;
  auto it = m_series.find(name);
  if (it == m_series.end()) return out;
  for (auto p = it->smooth->data()->constBegin(); p != it->smooth->data()->constEnd(); ++p) out.push_back(p->value);
  return out;
}

}  // namespace pha::widgets
