#include "gui/lens/lens_spectrum_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/csv_file.h"
#include "widgets/export_menu.h"
#include "widgets/matrix_heatmap.h"

namespace pha::gui {

LensSpectrumTab::LensSpectrumTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("GSS layer"), this));
  m_layer = new QComboBox(this);
  m_layer->setObjectName("lensSpectrumLayer");
  row->addWidget(m_layer);
  row->addWidget(new QLabel(tr("Checkpoint"), this));
  m_checkpoint = new QComboBox(this);
  m_checkpoint->setObjectName("lensSpectrumCheckpoint");
  m_checkpoint->setToolTip(tr("init: the model as the run's seed initialised it; step N: the run's checkpoint at "
                              "that step. Compare them to see the kernels' memory move in training."));
  row->addWidget(m_checkpoint);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  row->addWidget(m_message, 1);
  m_heatmap = new widgets::MatrixHeatmap(this);
  m_heatmap->setObjectName("lensSpectrumHeatmap");
  m_hist = new QCustomPlot(this);
  m_hist->setObjectName("lensHalfLifeHistogram");
  auto* exportMap = widgets::makeExportButton(m_heatmap->plot(), "lens-spectrum",
                                              [this](const QString& p, QString* e) { return writeCsv(p, e); }, this);
  exportMap->setText(tr("Export map…"));
  row->addWidget(exportMap);
  layout->addLayout(row);
  m_heatmap->setScale(widgets::MatrixHeatmap::Scale::Sequential, 0, 0, /*logColors=*/true);
  m_heatmap->setColorLabel(tr("|K(t)|"));
  m_heatmap->setAxisLabels(tr("lag t (tokens, log scale)"), tr("channel"));
  m_heatmap->setToolTipProvider([this](int r, int c) {
    if (!m_spectrum || m_layer->currentIndex() < 0 || c >= m_view.cols) return QString();
    const float hl = m_spectrum->layers[static_cast<size_t>(m_layer->currentIndex())].half_life[static_cast<size_t>(r)];
    return tr("channel %1, lags %2-%3: max |K| %4\nhalf-life %5 lags")
        .arg(r)
        .arg(m_view.bin_first[static_cast<size_t>(c)])
        .arg(m_view.bin_last[static_cast<size_t>(c)])
        .arg(m_heatmap->cellValue(r, c), 0, 'g', 3)
        .arg(std::isfinite(hl) ? QString::number(hl, 'f', 1) : tr("beyond the horizon"));
  });
  auto* split = new QSplitter(Qt::Horizontal, this);  // the dock is wide and short
  split->addWidget(m_heatmap);
  auto* histBox = new QWidget(split);
  auto* hl = new QHBoxLayout(histBox);
  hl->setContentsMargins(0, 0, 0, 0);
  hl->addWidget(m_hist, 1);
  auto* exportHist = widgets::makeExportButton(m_hist, "lens-half-lives", {}, histBox);
  exportHist->setText(tr("Export histogram…"));
  hl->addWidget(exportHist, 0, Qt::AlignTop);
  split->addWidget(histBox);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  m_heatmap->setMinimumWidth(260);
  split->setChildrenCollapsible(false);
  m_hist->setMinimumSize(200, 160);
  m_hist->xAxis->setLabel(tr("half-life (lags, log2 bins)"));
  m_hist->yAxis->setLabel(tr("channels"));
  layout->addWidget(split, 1);
  connect(m_layer, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(m_checkpoint, &QComboBox::activated, this, [this](int i) {
    runtime::LensOptions o;
    const qint64 step = m_checkpoint->itemData(i).toLongLong();
    if (step < 0) o.at_init = true;
    else o.step = step;
    emit checkpointRequested(o);
  });
  clear(tr("Pick a run and press Run."));
}

void LensSpectrumTab::setCheckpoints(const QList<qint64>& steps) {
  QSignalBlocker block(m_checkpoint);
  m_checkpoint->clear();
  m_checkpoint->addItem(tr("init"), qint64(-1));
  for (qint64 s : steps) m_checkpoint->addItem(tr("step %1").arg(s), s);
  m_checkpoint->setCurrentIndex(m_checkpoint->count() - 1);
}

void LensSpectrumTab::setSpectrum(const runtime::KernelSpectrum& s) {
  m_spectrum = s;
  const int was = m_layer->currentIndex();
  {
    QSignalBlocker block(m_layer);
    m_layer->clear();
    for (const auto& L : s.layers) m_layer->addItem(tr("layer %1 (%2 channels)").arg(L.layer).arg(L.channels));
    m_layer->setCurrentIndex(was >= 0 && was < m_layer->count() ? was : 0);
  }
  const int at = m_checkpoint->findText(QString::fromStdString(s.state));
  if (at >= 0) {
    QSignalBlocker block(m_checkpoint);
    m_checkpoint->setCurrentIndex(at);
  }
  refresh();
}

void LensSpectrumTab::setError(const QString& error) {
  clear(error);
}

void LensSpectrumTab::clear(const QString& message) {
  m_spectrum.reset();
  m_layer->clear();
  m_message->setText(message);
  m_heatmap->clear(message);
  m_hist->clearPlottables();
  m_hist->clearItems();
  m_hist->replot(QCustomPlot::rpQueuedReplot);
}

void LensSpectrumTab::setLayerIndex(int index) { m_layer->setCurrentIndex(index); }
QString LensSpectrumTab::message() const { return m_message->text(); }

void LensSpectrumTab::refresh() {
  m_hist->clearPlottables();
  m_hist->clearItems();
  if (!m_spectrum) return;
  m_view = spectrumView(*m_spectrum, m_layer->currentIndex());  // the data: spectrum_view.h
  const SpectrumView& v = m_view;
  if (!v.empty_reason.empty()) {
    const QString why = QString::fromStdString(v.empty_reason);
    m_message->setText(why);
    m_heatmap->clear(why);
    m_hist->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  QStringList rowNames, colNames;
  for (const auto& n : v.row_names) rowNames << QString::fromStdString(n);
  for (const auto& n : v.col_names) colNames << QString::fromStdString(n);
  m_heatmap->setMatrix(v.rows, v.cols, v.values, rowNames, colNames);

  auto* bars = new QCPBars(m_hist->xAxis, m_hist->yAxis);
  bars->setName(tr("channels"));
  bars->setBrush(QColor(33, 145, 140));
  bars->setPen(QPen(QColor(20, 90, 90)));
  bars->setWidth(0.9);
  for (const auto& [k, n] : v.half_life_bins) bars->addData(k + 0.5, n);
  QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
  const int step = v.max_bin > 12 ? 2 : 1;
  for (int k = 0; k <= v.max_bin; k += step) ticks->addTick(k, QString::number(1LL << k));
  m_hist->xAxis->setTicker(ticks);
  m_hist->xAxis->setRange(0, v.max_bin);
  m_hist->yAxis->setRange(0, v.max_count * 1.15);
  if (v.context_x >= 0) {
    auto* line = new QCPItemStraightLine(m_hist);
    line->point1->setCoords(v.context_x, 0);
    line->point2->setCoords(v.context_x, 1);
    line->setPen(QPen(QColor(200, 70, 0), 2, Qt::DashLine));
    auto* label = new QCPItemText(m_hist);
    label->position->setCoords(v.context_x, v.max_count * 1.08);
    // Left of the line: the line stands near the right end of the axis.
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
    label->setText(tr("training context %1 ").arg(m_spectrum->train_len));
    label->setColor(QColor(200, 70, 0));
  }
  m_hist->replot(QCustomPlot::rpQueuedReplot);
  m_message->setText(QString::fromStdString(v.summary));
}

bool LensSpectrumTab::writeCsv(const QString& path, QString* error) const {
  if (!m_spectrum || m_spectrum->layers.empty()) {
    if (error) *error = tr("No spectrum to export.");
    return false;
  }
  const runtime::KernelSpectrum& s = *m_spectrum;
  return widgets::writeCsvFile(path, "state,layer,channel,lag,abs_k,half_life", [&](QTextStream& out) {
    for (const auto& L : s.layers)
      for (int h = 0; h < L.channels; ++h)
        for (int t = 0; t < L.lags; ++t)
          out << widgets::csvField(QString::fromStdString(s.state)) << ',' << L.layer << ',' << h << ',' << t << ','
              << widgets::csvNumber(L.abs_k[static_cast<size_t>(h) * L.lags + t]) << ','
              << widgets::csvNumber(L.half_life[static_cast<size_t>(h)]) << '\n';
  }, error);
}

}  // namespace pha::gui
