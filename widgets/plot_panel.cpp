#include "widgets/plot_panel.h"

#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace pha::widgets {

PlotPanel::PlotPanel(const QString& xLabel, const QString& yLabel, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_plot = new QCustomPlot(this);
  m_plot->xAxis->setLabel(xLabel);
  m_plot->yAxis->setLabel(yLabel);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->hide();
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_message);
}

void PlotPanel::setLogX(bool on) {
  m_plot->xAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  m_plot->xAxis->setTicker(on ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                              : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void PlotPanel::setLogY(bool on) {
  m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  m_plot->yAxis->setTicker(on ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                              : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void PlotPanel::setEmptyMessage(const QString& message) {
  m_message->setText(message);
  m_message->setVisible(!message.isEmpty());
}

QString PlotPanel::emptyMessage() const { return m_message->isHidden() ? QString() : m_message->text(); }

void replotIfSized(QCustomPlot* plot) {
  if (plot->width() > 0 && plot->height() > 0) plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace pha::widgets
