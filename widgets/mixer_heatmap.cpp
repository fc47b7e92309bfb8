#include "mixer_heatmap.h"

#include <QLabel>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace pha::gui {

MixerHeatmap::MixerHeatmap(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_plot = new QCustomPlot(this);
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_message, 1);

  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_scale = new QCPColorScale(m_plot);
  m_plot->plotLayout()->addElement(0, 1, m_scale);
  m_scale->setType(QCPAxis::atRight);
  m_scale->axis()->setLabel("mixer weight");
  m_map->setColorScale(m_scale);
  // Perceptually ordered (viridis stops): equal steps in weight look like equal steps in colour.
  QCPColorGradient gradient;
  gradient.clearColorStops();
  gradient.setColorStopAt(0.00, QColor(68, 1, 84));
  gradient.setColorStopAt(0.25, QColor(59, 82, 139));
  gradient.setColorStopAt(0.50, QColor(33, 145, 140));
  gradient.setColorStopAt(0.75, QColor(94, 201, 98));
  gradient.setColorStopAt(1.00, QColor(253, 231, 37));
  gradient.setNanHandling(QCPColorGradient::nhNanColor);
  gradient.setNanColor(QColor(128, 128, 128));
  m_map->setGradient(gradient);
  m_map->setInterpolate(false);
  // Fixed scale: weights are comparable across layers, runs and time.
  m_map->setDataRange(QCPRange(0.0, 1.0));
  m_scale->setDataRange(QCPRange(0.0, 1.0));
  m_plot->xAxis->setLabel("branch");
  m_plot->yAxis->setLabel("layer (0 = input side)");
  m_plot->yAxis->setRangeReversed(true);
  auto* group = new QCPMarginGroup(m_plot);
  m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  clear(tr("No mixer weights yet."));
}

void MixerHeatmap::setMatrix(int layers, int branches, const std::vector<float>& weights,
                             const QStringList& branchNames) {
  if (layers <= 0 || branches <= 0 || weights.size() != static_cast<size_t>(layers) * branches) {
    clear(tr("Mixer matrix has the wrong size (%1 values for %2 x %3).")
              .arg(weights.size()).arg(layers).arg(branches));
    return;
  }
  m_layers = layers;
  m_branches = branches;
  m_map->data()->setSize(branches, layers);
  m_map->data()->setRange(QCPRange(0, branches - 1), QCPRange(0, layers - 1));
  for (int l = 0; l < layers; ++l)
    for (int b = 0; b < branches; ++b)
      m_map->data()->setCell(b, l, weights[static_cast<size_t>(l) * branches + b]);
  m_map->setDataRange(QCPRange(0.0, 1.0));

  QSharedPointer<QCPAxisTickerText> xt(new QCPAxisTickerText);
  for (int b = 0; b < branches; ++b) xt->addTick(b, b < branchNames.size() ? branchNames[b] : QString::number(b));
  m_plot->xAxis->setTicker(xt);
  QSharedPointer<QCPAxisTickerText> yt(new QCPAxisTickerText);
  for (int l = 0; l < layers; ++l) yt->addTick(l, QString::number(l));
  m_plot->yAxis->setTicker(yt);
  m_plot->xAxis->setRange(-0.5, branches - 0.5);
  m_plot->yAxis->setRange(-0.5, layers - 0.5);
  m_message->clear();
  m_message->hide();
  m_plot->show();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MixerHeatmap::clear(const QString& message) {
  m_layers = 0;
  m_branches = 0;
  m_map->data()->clear();
  m_message->setText(message);
  m_message->show();
  m_plot->hide();  // empty axes say nothing; the message says why there is no matrix
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double MixerHeatmap::cellValue(int layer, int branch) const {
  if (layer < 0 || layer >= m_layers || branch < 0 || branch >= m_branches) return std::nan("");
  return m_map->data()->cell(branch, layer);
}

QString MixerHeatmap::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

}  // namespace pha::gui
