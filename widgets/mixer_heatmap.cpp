#include "widgets/mixer_heatmap.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/csv_file.h"
#include "widgets/replot_throttle.h"

namespace pha::widgets {

MixerHeatmap::MixerHeatmap(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_plot = new QCustomPlot(this);
  m_throttle = new ReplotThrottle(m_plot);
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_message, 1);

  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  // The colour bar says what the colours mean; a legend entry for the map would be an empty
  // box over the layer-0 FFN cell (and in every export).
  m_map->removeFromLegend();
  m_plot->legend->setVisible(false);
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
  if (std::all_of(weights.begin(), weights.end(), [](float w) { return std::isnan(w); })) {
    clear(tr("No layer of this model has a mixer: every sub-layer runs a single branch (sequential, transformer and "
             "gss-only models), so there are no mixer weights to show."));
    return;
  }
  m_layers = layers;
  m_branches = branches;
  m_weights = weights;
  m_branchNames = branchNames;
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
  setLabels(weights);
  m_message->clear();
  m_message->hide();
  m_plot->show();
  m_throttle->request();
}

void MixerHeatmap::clear(const QString& message) {
  m_layers = 0;
  m_branches = 0;
  m_weights.clear();
  m_step = -1;
  clearLabels();
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

void MixerHeatmap::clearLabels() {
  for (QCPItemText* t : m_labels) m_plot->removeItem(t);
  m_labels.clear();
}

void MixerHeatmap::setLabels(const std::vector<float>& weights) {
  const std::size_t cells = static_cast<std::size_t>(m_layers) * m_branches;
  if (cells > static_cast<std::size_t>(kMaxLabelledCells)) {
    clearLabels();
    return;
  }
  if (m_labels.size() != cells) {  // reuse the items while the shape stays (live updates)
    clearLabels();
    QFont font = m_plot->font();
    font.setPointSizeF(std::max(7.0, font.pointSizeF() * 0.9));
    for (std::size_t i = 0; i < cells; ++i) {
      auto* t = new QCPItemText(m_plot);
      t->setClipToAxisRect(true);
      t->position->setType(QCPItemPosition::ptPlotCoords);
      t->setPositionAlignment(Qt::AlignCenter);
      t->setFont(font);
      t->setSelectable(false);
      m_labels.push_back(t);
    }
  }
  for (int l = 0; l < m_layers; ++l)
    for (int b = 0; b < m_branches; ++b) {
      const float w = weights[static_cast<std::size_t>(l) * m_branches + b];
      QCPItemText* t = m_labels[static_cast<std::size_t>(l) * m_branches + b];
      t->position->setCoords(b, l);
      t->setText(std::isfinite(w) ? QString::number(w, 'f', 2) : QStringLiteral("-"));
      // Dark text on the bright (yellow-green) end of the gradient, light text elsewhere.
      t->setColor(std::isfinite(w) && w >= 0.62f ? QColor(20, 20, 20) : QColor(250, 250, 250));
    }
}

QString MixerHeatmap::cellText(int layer, int branch) const {
  if (layer < 0 || layer >= m_layers || branch < 0 || branch >= m_branches || m_labels.empty()) return {};
  return m_labels[static_cast<std::size_t>(layer) * m_branches + branch]->text();
}

bool MixerHeatmap::writeCsv(const QString& path, QString* error) const {
  if (m_layers <= 0) {
    if (error) *error = tr("There is no mixer matrix to export.");
    return false;
  }
  return writeCsvFile(path, "layer,branch,step,weight", [this](QTextStream& out) {
    for (int l = 0; l < m_layers; ++l)
      for (int b = 0; b < m_branches; ++b)
        out << l << ',' << csvField(b < m_branchNames.size() ? m_branchNames[b] : QString::number(b)) << ','
            << m_step << ',' << csvNumber(m_weights[static_cast<std::size_t>(l) * m_branches + b]) << '\n';
  }, error);
}

QString MixerHeatmap::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

}  // namespace pha::widgets
