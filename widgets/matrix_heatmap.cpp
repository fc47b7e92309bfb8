#include "widgets/matrix_heatmap.h"

#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace pha::widgets {

namespace {

QCPColorGradient viridis() {
  QCPColorGradient g;
  g.clearColorStops();
  g.setColorStopAt(0.00, QColor(68, 1, 84));
  g.setColorStopAt(0.25, QColor(59, 82, 139));
  g.setColorStopAt(0.50, QColor(33, 145, 140));
  g.setColorStopAt(0.75, QColor(94, 201, 98));
  g.setColorStopAt(1.00, QColor(253, 231, 37));
  return g;
}

// Blue (negative) - white (0) - vermilion (positive): Okabe-Ito ends, readable by colour-blind eyes.
QCPColorGradient diverging() {
  QCPColorGradient g;
  g.clearColorStops();
  g.setColorStopAt(0.0, QColor(0, 90, 160));
  g.setColorStopAt(0.5, QColor(247, 247, 247));
  g.setColorStopAt(1.0, QColor(200, 70, 0));
  return g;
}

}  // namespace

MatrixHeatmap::MatrixHeatmap(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_plot = new QCustomPlot(this);
  m_plot->setMinimumHeight(160);
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_message, 1);
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->removeFromLegend();
  m_plot->legend->setVisible(false);
  m_scale = new QCPColorScale(m_plot);
  m_plot->plotLayout()->addElement(0, 1, m_scale);
  m_scale->setType(QCPAxis::atRight);
  m_map->setColorScale(m_scale);
  m_map->setInterpolate(false);
  m_plot->yAxis->setRangeReversed(true);
  auto* group = new QCPMarginGroup(m_plot);
  m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_plot->installEventFilter(this);
  setScale(Scale::Sequential, 0.0, 1.0);
  clear(tr("Nothing measured yet."));
}

void MatrixHeatmap::setScale(Scale scale, double lo, double hi, bool logColors) {
  m_kind = scale;
  m_lo = lo;
  m_hi = hi;
  m_log = logColors;
  QCPColorGradient g = scale == Scale::Diverging ? diverging() : viridis();
  g.setNanHandling(QCPColorGradient::nhNanColor);
  g.setNanColor(QColor(150, 150, 150));
  m_map->setGradient(g);
  m_scale->setDataScaleType(logColors ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (logColors) m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  else m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  if (m_rows > 0) setMatrix(m_rows, m_cols, m_values, {}, {});
}

void MatrixHeatmap::setColorLabel(const QString& label) { m_scale->axis()->setLabel(label); }

void MatrixHeatmap::setAxisLabels(const QString& x, const QString& y) {
  m_plot->xAxis->setLabel(x);
  m_plot->yAxis->setLabel(y);
}

void MatrixHeatmap::setCellLabels(bool on, int decimals) {
  m_cellLabels = on;
  m_decimals = decimals;
}

void MatrixHeatmap::setTickLabelRotation(double degrees) { m_plot->xAxis->setTickLabelRotation(degrees); }

// Empty name lists keep the axes' current ticks (a re-colouring by setScale).
void MatrixHeatmap::setMatrix(int rows, int cols, std::vector<float> values, const QStringList& rowNames,
                              const QStringList& colNames) {
  if (rows <= 0 || cols <= 0 || values.size() != static_cast<size_t>(rows) * cols) {
    clear(tr("Nothing to show (%1 values for %2 x %3).").arg(values.size()).arg(rows).arg(cols));
    return;
  }
  m_rows = rows;
  m_cols = cols;
  m_values = std::move(values);
  m_map->data()->setSize(cols, rows);
  m_map->data()->setRange(QCPRange(0, cols - 1), QCPRange(0, rows - 1));  // a size-1 side sits at 0
  double lo = m_lo, hi = m_hi, maxAbs = 0.0, mn = INFINITY, mx = -INFINITY;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float v = m_values[static_cast<size_t>(r) * cols + c];
      m_map->data()->setCell(c, r, v);
      if (!std::isfinite(v)) continue;
      maxAbs = std::max(maxAbs, std::fabs(static_cast<double>(v)));
      if (!m_log || v > 0) {
        mn = std::min(mn, static_cast<double>(v));
        mx = std::max(mx, static_cast<double>(v));
      }
    }
  if (lo >= hi) {  // automatic
    if (m_kind == Scale::Diverging) {
      hi = maxAbs > 0 ? maxAbs : 1.0;
      lo = -hi;
    } else {
      lo = std::isfinite(mn) ? mn : 0.0;
      hi = std::isfinite(mx) && mx > lo ? mx : lo + 1.0;
    }
  }
  m_map->setDataRange(QCPRange(lo, hi));
  m_scale->setDataRange(QCPRange(lo, hi));
  if (!rowNames.isEmpty()) m_rowNames = rowNames;
  if (!colNames.isEmpty()) m_colNames = colNames;
  m_tickRowStep = m_tickColStep = 0;
  applyTicks();
  m_plot->xAxis->setRange(-0.5, cols - 0.5);
  m_plot->yAxis->setRange(-0.5, rows - 0.5);
  applyLabels();
  m_message->clear();
  m_message->hide();
  m_plot->show();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MatrixHeatmap::applyTicks() {
  if (m_rows <= 0) return;
  const QFontMetrics fm(m_plot->yAxis->tickLabelFont());
  // The axis rect's share of the plot, estimated (it is laid out only at the next replot).
  const bool rotated = std::abs(m_plot->xAxis->tickLabelRotation()) >= 45;
  const int h = std::max(40, m_plot->height() - (rotated ? 110 : 60));
  const int w = std::max(40, m_plot->width() - 150);
  // Only the named positions count: a few named columns among many (log lag bins) keep all names.
  auto named = [](const QStringList& names) {
    return static_cast<int>(std::count_if(names.begin(), names.end(), [](const QString& n) { return !n.isEmpty(); }));
  };
  const int rowStep = std::max(1, (named(m_rowNames) * (fm.height() + 1) + h - 1) / std::max(1, h));
  // Rotated column labels need a line's height each; flat ones their text's width.
  int colWidth = fm.height() + 1;
  if (!rotated)
    for (const QString& n : m_colNames) colWidth = std::max(colWidth, fm.horizontalAdvance(n) + 6);
  const int colStep = std::max(1, (named(m_colNames) * colWidth + w - 1) / std::max(1, w));
  if (rowStep == m_tickRowStep && colStep == m_tickColStep) return;
  m_tickRowStep = rowStep;
  m_tickColStep = colStep;
  QSharedPointer<QCPAxisTickerText> yt(new QCPAxisTickerText);
  for (int r = 0; r < m_rows && r < m_rowNames.size(); r += rowStep)
    if (!m_rowNames[r].isEmpty()) yt->addTick(r, m_rowNames[r]);
  m_plot->yAxis->setTicker(yt);
  QSharedPointer<QCPAxisTickerText> xt(new QCPAxisTickerText);
  for (int c = 0; c < m_cols && c < m_colNames.size(); c += colStep)
    if (!m_colNames[c].isEmpty()) xt->addTick(c, m_colNames[c]);
  m_plot->xAxis->setTicker(xt);
}

void MatrixHeatmap::clear(const QString& message) {
  m_rows = m_cols = 0;
  m_values.clear();
  clearLabels();
  m_map->data()->clear();
  m_message->setText(message);
  m_message->show();
  m_plot->hide();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double MatrixHeatmap::cellValue(int row, int col) const {
  if (row < 0 || row >= m_rows || col < 0 || col >= m_cols) return std::nan("");
  return m_values[static_cast<size_t>(row) * m_cols + col];
}

QString MatrixHeatmap::cellText(int row, int col) const {
  if (row < 0 || row >= m_rows || col < 0 || col >= m_cols || m_labels.empty()) return {};
  return m_labels[static_cast<size_t>(row) * m_cols + col]->text();
}

void MatrixHeatmap::clearLabels() {
  for (QCPItemText* t : m_labels) m_plot->removeItem(t);
  m_labels.clear();
}

void MatrixHeatmap::applyLabels() {
  clearLabels();
  const size_t cells = static_cast<size_t>(m_rows) * m_cols;
  if (!m_cellLabels || cells > static_cast<size_t>(kMaxLabelledCells)) return;
  const QCPRange range = m_map->dataRange();
  QFont font = m_plot->font();
  font.setPointSizeF(std::max(7.0, font.pointSizeF() * 0.9));
  for (int r = 0; r < m_rows; ++r)
    for (int c = 0; c < m_cols; ++c) {
      const float v = m_values[static_cast<size_t>(r) * m_cols + c];
      auto* t = new QCPItemText(m_plot);
      t->setClipToAxisRect(true);
      t->position->setType(QCPItemPosition::ptPlotCoords);
      t->position->setCoords(c, r);
      t->setPositionAlignment(Qt::AlignCenter);
      t->setFont(font);
      t->setSelectable(false);
      t->setText(std::isfinite(v) ? QString::number(v, 'f', m_decimals) : QStringLiteral("-"));
      // Dark text where the cell is light: the diverging map's middle, viridis's bright end.
      double f = range.size() > 0 ? (v - range.lower) / range.size() : 0.5;
      const bool light = m_kind == Scale::Diverging ? std::fabs(f - 0.5) < 0.3 : f >= 0.62;
      t->setColor(std::isfinite(v) && light ? QColor(20, 20, 20) : QColor(250, 250, 250));
      m_labels.push_back(t);
    }
}

bool MatrixHeatmap::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::Resize && m_rows > 0) {
    const int was = m_tickRowStep * 1000 + m_tickColStep;
    applyTicks();
    if (m_tickRowStep * 1000 + m_tickColStep != was) m_plot->replot(QCustomPlot::rpQueuedReplot);
  }
  if (watched == m_plot && event->type() == QEvent::ToolTip && m_rows > 0) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int c = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(help->pos().x())));
    const int r = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(help->pos().y())));
    if (r >= 0 && r < m_rows && c >= 0 && c < m_cols && m_plot->axisRect()->rect().contains(help->pos())) {
      QString text = m_tip ? m_tip(r, c) : QString::number(cellValue(r, c), 'g', 4);
      QToolTip::showText(help->globalPos(), text, m_plot);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

QString MatrixHeatmap::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

}  // namespace pha::widgets
