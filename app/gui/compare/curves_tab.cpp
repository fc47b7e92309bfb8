#include "curves_tab.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "curve_plot.h"
#include "export_menu.h"
#include "plot_export.h"

namespace pha::gui {

namespace store = pha::store;

namespace {

const Qt::PenStyle kKeyStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
constexpr std::size_t kBuckets = 2000;  // as the live view reads a stored run (docs/gui.md)

// What a metric measures, by the name after its split ("val/loss" -> "loss").
QString metricTitle(const QString& key) {
  const QString name = key.section('/', -1);
  static const QHash<QString, QString> titles = {
      {"loss", QObject::tr("loss (nats/token)")},   {"ppl", QObject::tr("perplexity")},
      {"perplexity", QObject::tr("perplexity")},    {"bpb", QObject::tr("bits per byte")},
      {"accuracy", QObject::tr("accuracy")},        {"macro_accuracy", QObject::tr("macro accuracy")},
      {"exact_match", QObject::tr("exact match")},  {"tokens_per_s", QObject::tr("tokens / s")},
      {"memory_bytes", QObject::tr("memory (bytes)")}, {"lr", QObject::tr("learning rate")},
      {"grad_norm", QObject::tr("gradient norm")}};
  if (key.startsWith(QLatin1String("branch_rms/"))) return QObject::tr("branch output RMS");
  return titles.value(name, key);
}

}  // namespace

QString metricAxisTitle(const QStringList& keys) {
  QStringList titles;
  for (const QString& k : keys)
    if (!titles.contains(metricTitle(k))) titles << metricTitle(k);
  return titles.isEmpty() ? QObject::tr("value") : titles.join(QStringLiteral(", "));
}

CurvesTab::CurvesTab(StoreCache& cache, QWidget* parent) : QWidget(parent), m_cache(cache) {
  auto* layout = new QHBoxLayout(this);
  auto* side = new QVBoxLayout;
  side->addWidget(new QLabel(tr("Metrics"), this));
  m_keys = new QListWidget(this);
  m_keys->setObjectName("curveKeys");
  m_keys->setMaximumWidth(220);
  m_keys->setToolTip(tr("Tick the metrics to overlay; each run has one colour, each metric one line style"));
  side->addWidget(m_keys, 1);
  auto* right = new QVBoxLayout;
  m_plot = new widgets::CurvePlot(tr("value"), this);
  m_plot->setObjectName("compareCurvesPlot");
  m_message = new QLabel(this);
  m_message->setObjectName("compareCurvesMessage");
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->hide();
  right->addWidget(m_plot, 1);
  right->addWidget(m_message);
  auto csv = [this](const QString& path, QString* error) { return writeCsv(path, error); };
  installExportMenu(m_plot->plot(), "compare-curves", csv);
  side->addWidget(makeExportButton(m_plot->plot(), "compare-curves", csv, this));
  layout->addLayout(side);
  layout->addLayout(right, 1);
  connect(m_keys, &QListWidget::itemChanged, this, [this] { redraw(); });
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

void CurvesTab::setXAxis(store::XAxis axis) {
  m_plot->setXAxis(axis == store::XAxis::Tokens   ? widgets::CurveX::Tokens
                   : axis == store::XAxis::WallMs ? widgets::CurveX::WallTime
                                                  : widgets::CurveX::Step);
}

void CurvesTab::redraw() {
  m_plot->clearSeries();
  m_names.clear();
  const QStringList keys = selectedKeys();
  QStringList problems;
  const int runCount = m_runs ? static_cast<int>(m_runs->size()) : 0;
  for (int r = 0; r < runCount; ++r) {
    const LoadedRun& run = (*m_runs)[static_cast<std::size_t>(r)];
    if (!run.ok()) {
      problems << run.error;
      continue;
    }
    QString error;
    store::Store* s = m_cache.store(run.ref.storePath, &error);
    if (!s) problems << error;
    for (int k = 0; k < keys.size() && s; ++k) {
      const std::string key = keys[k].toStdString();
      if (!run.summaries.count(key)) continue;
      // The same step buckets twice, once with tokens and once with wall time as x.
      std::vector<double> st, tk, wl, v;
      try {
        const auto tokens = s->read_metric(run.ref.runId, key, kBuckets, store::XAxis::Tokens);
        const auto wall = s->read_metric(run.ref.runId, key, kBuckets, store::XAxis::WallMs);
        for (std::size_t i = 0; i < tokens.size(); ++i) {
          st.push_back(static_cast<double>(tokens[i].step_last));
          tk.push_back(tokens[i].x_last);
          wl.push_back(i < wall.size() ? wall[i].x_last / 1000.0 : 0.0);
          v.push_back(tokens[i].last);
        }
      } catch (const std::exception& e) {
        problems << tr("%1, %2: %3").arg(run.label, keys[k], QString::fromUtf8(e.what()));
        continue;
      }
      const QString name = keys.size() > 1 ? QStringLiteral("%1 · %2").arg(run.label, keys[k]) : run.label;
      m_plot->setSeries(name, st, tk, wl, v, runColor(r));
      m_names << name;
      // One line style per key: on the series' legend graph (the smoothed one).
      for (int g = 0; g < m_plot->plot()->graphCount(); ++g) {
        QCPGraph* graph = m_plot->plot()->graph(g);
        if (graph->name() != name) continue;
        QPen pen = graph->pen();
        pen.setStyle(kKeyStyles[k % 4]);
        graph->setPen(pen);
      }
    }
  }
  m_plot->setYLabel(metricAxisTitle(keys));
  if (runCount == 0) problems << tr("Select two or more saved runs to compare their curves.");
  else if (keys.isEmpty()) problems << tr("Tick one or more metrics on the left.");
  else if (m_names.isEmpty()) problems << tr("None of the compared runs recorded %1.").arg(keys.join(", "));
  m_message->setText(problems.join('\n'));
  m_message->setVisible(!problems.isEmpty());
  m_plot->replotLater();
}

int CurvesTab::curveCount() const { return static_cast<int>(m_names.size()); }

int CurvesTab::pointCount(int curve) const { return m_plot->pointCount(curveName(curve)); }

QString CurvesTab::curveName(int curve) const { return m_names.value(curve); }

std::vector<double> CurvesTab::curveValues(int curve) const { return m_plot->drawnSmoothed(curveName(curve)); }

QString CurvesTab::emptyMessage() const { return m_message->isHidden() ? QString() : m_message->text(); }

QCustomPlot* CurvesTab::plot() const { return m_plot->plot(); }

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
