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

std::vector<int64_t> LensSpectrumTab::lagBins(int64_t horizon, int maxBins) {
  std::vector<int64_t> starts{0};
  if (horizon <= 1) return starts;
  const double ratio = std::pow(static_cast<double>(horizon), 1.0 / std::max(1, maxBins - 1));
  double edge = 1.0;
  while (static_cast<int64_t>(std::llround(edge)) < horizon) {
    const int64_t s = std::llround(edge);
    if (s > starts.back()) starts.push_back(s);
    edge = std::max(edge * ratio, static_cast<double>(s + 1));
  }
  return starts;
}

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
    if (!m_spectrum || m_layer->currentIndex() < 0) return QString();
    const auto bins = lagBins(m_spectrum->horizon, 96);
    const int64_t lo = bins[static_cast<size_t>(c)], hi = static_cast<size_t>(c) + 1 < bins.size() ? bins[c + 1] - 1 : m_spectrum->horizon - 1;
    const auto& L = m_spectrum->layers[static_cast<size_t>(m_layer->currentIndex())];
    return tr("channel %1, lags %2-%3: max |K| %4\nhalf-life %5 lags").arg(r).arg(lo).arg(hi)
        .arg(m_heatmap->cellValue(r, c), 0, 'g', 3)
        .arg(std::isfinite(L.half_life[static_cast<size_t>(r)]) ? QString::number(L.half_life[static_cast<size_t>(r)], 'f', 1)
                                                                : tr("beyond the horizon"));
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
  const runtime::KernelSpectrum& s = *m_spectrum;
  if (!s.none_reason.empty() || s.layers.empty()) {
    const QString why = s.none_reason.empty() ? tr("No GSS layer.") : QString::fromStdString(s.none_reason);
    m_message->setText(why);
    m_heatmap->clear(why);
    m_hist->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const int li = std::clamp(m_layer->currentIndex(), 0, static_cast<int>(s.layers.size()) - 1);
  const auto& L = s.layers[static_cast<size_t>(li)];
  const auto bins = lagBins(std::min<int64_t>(s.horizon, L.lags), 96);
  const int cols = static_cast<int>(bins.size());
  std::vector<float> values(static_cast<size_t>(L.channels) * cols, NAN);
  float top = 0.0f;
  for (float v : L.abs_k) if (std::isfinite(v)) top = std::max(top, v);
  const float floor = top > 0 ? top * 1e-6f : 1e-12f;  // log colours: zeros drawn at the floor
  for (int h = 0; h < L.channels; ++h)
    for (int c = 0; c < cols; ++c) {
      const int64_t lo = bins[static_cast<size_t>(c)], hi = c + 1 < cols ? bins[static_cast<size_t>(c) + 1] : L.lags;
      float m = 0.0f;
      for (int64_t t = lo; t < hi; ++t) m = std::max(m, L.abs_k[static_cast<size_t>(h) * L.lags + static_cast<size_t>(t)]);
      values[static_cast<size_t>(h) * cols + c] = std::max(m, floor);
    }
  QStringList colNames;
  for (int c = 0; c < cols; ++c) {
    const int64_t lo = bins[static_cast<size_t>(c)], hi = c + 1 < cols ? bins[static_cast<size_t>(c) + 1] : L.lags;
    QString name;
    for (int64_t d = 1; d <= hi; d *= 10)
      if (d >= lo && d < hi) name = QString::number(d);
    if (lo == 0) name = "0";
    if (lo == 1 && cols > 2) name.clear();  // beside the lag-0 column "0" and "1" would run together
    colNames << name;
  }
  QStringList rowNames;
  const int every = std::max(1, L.channels / 16);
  for (int h = 0; h < L.channels; ++h) rowNames << (h % every == 0 ? QString::number(h) : QString());
  m_heatmap->setMatrix(L.channels, cols, std::move(values), rowNames, colNames);

  // Half-lives in log2 bins; those beyond the horizon counted apart.
  std::map<int, int> counts;
  int beyond = 0;
  for (float hl : L.half_life) {
    if (!std::isfinite(hl)) { ++beyond; continue; }
    ++counts[static_cast<int>(std::floor(std::log2(std::max(1.0f, hl))))];
  }
  auto* bars = new QCPBars(m_hist->xAxis, m_hist->yAxis);
  bars->setName(tr("channels"));
  bars->setBrush(QColor(33, 145, 140));
  bars->setPen(QPen(QColor(20, 90, 90)));
  bars->setWidth(0.9);
  int maxBin = static_cast<int>(std::ceil(std::log2(std::max<double>(2, s.horizon))));
  double maxCount = 1;
  for (const auto& [k, n] : counts) {
    bars->addData(k + 0.5, n);
    maxCount = std::max(maxCount, static_cast<double>(n));
    maxBin = std::max(maxBin, k + 1);
  }
  QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
  const int step = maxBin > 12 ? 2 : 1;
  for (int k = 0; k <= maxBin; k += step) ticks->addTick(k, QString::number(1LL << k));
  m_hist->xAxis->setTicker(ticks);
  m_hist->xAxis->setRange(0, maxBin);
  m_hist->yAxis->setRange(0, maxCount * 1.15);
  if (s.train_len > 0) {
    const double x = std::log2(static_cast<double>(s.train_len));
    auto* line = new QCPItemStraightLine(m_hist);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(QColor(200, 70, 0), 2, Qt::DashLine));
    auto* label = new QCPItemText(m_hist);
    label->position->setCoords(x, maxCount * 1.08);
    // Left of the line: the line stands near the right end of the axis.
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
    label->setText(tr("training context %1 ").arg(s.train_len));
    label->setColor(QColor(200, 70, 0));
  }
  m_hist->replot(QCustomPlot::rpQueuedReplot);
  m_message->setText(tr("%1: %2 channels, lags 0-%3; %4 half-life(s) beyond the horizon")
                         .arg(QString::fromStdString(s.state))
                         .arg(L.channels)
                         .arg(s.horizon - 1)
                         .arg(beyond));
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
