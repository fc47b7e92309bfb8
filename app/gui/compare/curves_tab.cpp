#include "curves_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "export_menu.h"
#include "plot_export.h"
#include "plot_panel.h"

namespace pha::gui {

namespace store = pha::store;

namespace {

const Qt::PenStyle kKeyStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};

QString axisTitle(store::XAxis axis) {
  switch (axis) {
    case store::XAxis::Step: return QObject::tr("step");
    case store::XAxis::Tokens: return QObject::tr("tokens");
    case store::XAxis::WallMs: return QObject::tr("wall time (s)");
  }
  return {};
}

}  // namespace

CurvesTab::CurvesTab(StoreCache& cache, QWidget* parent) : QWidget(parent), m_cache(cache) {
  auto* layout = new QHBoxLayout(this);
  auto* side = new QVBoxLayout;
  side->addWidget(new QLabel(tr("Metrics"), this));
  m_keys = new QListWidget(this);
  m_keys->setObjectName("curveKeys");
  m_keys->setMaximumWidth(220);
  side->addWidget(m_keys, 1);
  side->addWidget(new QLabel(tr("x axis"), this));
  m_xAxis = new QComboBox(this);
  m_xAxis->addItem(tr("step"), static_cast<int>(store::XAxis::Step));
  m_xAxis->addItem(tr("tokens"), static_cast<int>(store::XAxis::Tokens));
  m_xAxis->addItem(tr("wall time"), static_cast<int>(store::XAxis::WallMs));
  side->addWidget(m_xAxis);
  m_panel = new widgets::PlotPanel(tr("step"), tr("value"), this);
  m_panel->setObjectName("compareCurvesPlot");
  m_panel->plot()->legend->setVisible(true);
  m_panel->plot()->legend->setFont(font());
  auto csv = [this](const QString& path, QString* error) { return writeCsv(path, error); };
  installExportMenu(m_panel->plot(), "compare-curves", csv);
  side->addWidget(makeExportButton(m_panel->plot(), "compare-curves", csv, this));
  layout->addLayout(side);
  layout->addWidget(m_panel, 1);
  connect(m_keys, &QListWidget::itemChanged, this, [this] { redraw(); });
  connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  redraw();
}

void CurvesTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  const QStringList keys = m_runs ? unionOfKeys(*m_runs) : QStringList{};
  QStringList wanted = selectedKeys();
  wanted.erase(std::remove_if(wanted.begin(), wanted.end(), [&](const QString& k) { return !keys.contains(k); }),
               wanted.end());
  if (wanted.isEmpty()) {
    for (const char* k : {"train/loss", "val/loss"})
      if (keys.contains(k)) wanted << k;
    if (wanted.isEmpty() && !keys.isEmpty()) wanted << keys.front();
  }
  {
    QSignalBlocker block(m_keys);
    m_keys->clear();
    for (const auto& key : keys) {
      auto* item = new QListWidgetItem(key, m_keys);
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      item->setCheckState(wanted.contains(key) ? Qt::Checked : Qt::Unchecked);
    }
  }
  redraw();
}

void CurvesTab::setSelectedKeys(const QStringList& keys) {
  {
    QSignalBlocker block(m_keys);
    for (int i = 0; i < m_keys->count(); ++i)
      m_keys->item(i)->setCheckState(keys.contains(m_keys->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
  }
  redraw();
}

QStringList CurvesTab::selectedKeys() const {
  QStringList keys;
  for (int i = 0; i < m_keys->count(); ++i)
    if (m_keys->item(i)->checkState() == Qt::Checked) keys << m_keys->item(i)->text();
  return keys;
}

void CurvesTab::setXAxis(store::XAxis axis) { m_xAxis->setCurrentIndex(m_xAxis->findData(static_cast<int>(axis))); }

void CurvesTab::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  const auto axis = static_cast<store::XAxis>(m_xAxis->currentData().toInt());
  plot->xAxis->setLabel(axisTitle(axis));
  const QStringList keys = selectedKeys();
  QStringList problems;
  // About one bucket per horizontal pixel of the plot (at least 200 before it is laid out).
  const std::size_t maxPoints = static_cast<std::size_t>(std::max(200, plot->width()));
  const int runCount = m_runs ? static_cast<int>(m_runs->size()) : 0;
  for (int r = 0; r < runCount; ++r) {
    const LoadedRun& run = (*m_runs)[static_cast<std::size_t>(r)];
    if (!run.ok()) {
      problems << run.error;
      continue;
    }
    QString error;
    store::Store* s = m_cache.store(run.ref.storePath, &error);
    for (int k = 0; k < keys.size() && s; ++k) {
      if (!run.summaries.count(keys[k].toStdString())) continue;
      std::vector<store::MetricBucket> buckets;
      try {
        buckets = s->read_metric(run.ref.runId, keys[k].toStdString(), maxPoints, axis);
      } catch (const std::exception& e) {
        problems << tr("%1, %2: %3").arg(run.label, keys[k], QString::fromUtf8(e.what()));
        continue;
      }
      QVector<double> x, y;
      for (const auto& b : buckets) {
        x << (axis == store::XAxis::WallMs ? b.x_last / 1000.0 : b.x_last);
        y << b.last;
      }
      QCPGraph* graph = plot->addGraph();
      graph->setName(keys.size() > 1 ? QStringLiteral("%1 · %2").arg(run.label, keys[k]) : run.label);
      QPen pen(runColor(r), 2.0, kKeyStyles[k % 4]);
      graph->setPen(pen);
      graph->setData(x, y, true);
    }
    if (!s) problems << error;
  }
  if (plot->graphCount() > 0) {
    plot->rescaleAxes();
    padAxisRange(plot->yAxis);
  }
  plot->yAxis->setLabel(keys.size() == 1 ? keys.front() : tr("value"));
  if (runCount == 0) problems << tr("Select two or more saved runs to compare their curves.");
  else if (keys.isEmpty()) problems << tr("Tick one or more metrics on the left.");
  else if (plot->graphCount() == 0) problems << tr("None of the compared runs recorded %1.").arg(keys.join(", "));
  m_panel->setEmptyMessage(problems.join('\n'));
  plot->replot(QCustomPlot::rpQueuedReplot);
}

int CurvesTab::curveCount() const { return m_panel->plot()->graphCount(); }

int CurvesTab::pointCount(int curve) const {
  QCustomPlot* plot = m_panel->plot();
  return curve >= 0 && curve < plot->graphCount() ? plot->graph(curve)->dataCount() : 0;
}

QString CurvesTab::curveName(int curve) const {
  QCustomPlot* plot = m_panel->plot();
  return curve >= 0 && curve < plot->graphCount() ? plot->graph(curve)->name() : QString();
}

QString CurvesTab::emptyMessage() const { return m_panel->emptyMessage(); }

QCustomPlot* CurvesTab::plot() const { return m_panel->plot(); }

bool CurvesTab::writeCsv(const QString& path, QString* error) const {
  QList<MetricSeries> series;
  const QStringList keys = selectedKeys();
  if (m_runs) {
    for (const auto& run : *m_runs) {
      QString openError;
      store::Store* s = run.ok() ? m_cache.store(run.ref.storePath, &openError) : nullptr;
      if (!s) continue;
      for (const auto& key : keys) {
        if (!run.summaries.count(key.toStdString())) continue;
        try {
          series.append({run.label, run.ref.storePath, run.ref.runId, key,
                         s->read_metric_full(run.ref.runId, key.toStdString())});
        } catch (const std::exception& e) {
          if (error) *error = QString::fromUtf8(e.what());
          return false;
        }
      }
    }
  }
  return writeMetricSeriesCsv(path, series, error);
}

}  // namespace pha::gui
