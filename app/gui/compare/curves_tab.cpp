#include "gui/compare/curves_tab.h"
#include "gui/compare/metrics_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "widgets/curve_plot.h"
#include "widgets/export_menu.h"
#include "gui/compare/metrics_csv.h"
#include "widgets/plot_export.h"
#include "runtime/export.h"

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
  side->addWidget(new QLabel(tr("Seeded replicas"), this));
  m_replicas = new QComboBox(this);
  m_replicas->setObjectName("replicaBandCombo");
  m_replicas->addItems({tr("mean, ±1 std band"), tr("mean, min–max band"), tr("each run")});
  m_replicas->setToolTip(tr("Compared runs of one group (a project's seeds) are drawn as their mean at each step "
                            "with a band of ±1 sample standard deviation or from the lowest to the highest "
                            "replica; or each run as its own curve"));
  m_replicas->setMaximumWidth(220);
  side->addWidget(m_replicas);
  auto* right = new QVBoxLayout;
  m_plot = new widgets::CurvePlot(tr("value"), this);
  m_plot->setObjectName("compareCurvesPlot");
  m_message = new QLabel(this);
  m_message->setObjectName("compareCurvesMessage");
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->hide();
  m_note = new QLabel(this);
  m_note->setObjectName("compareCurvesNote");
  m_note->setWordWrap(true);
  m_note->hide();
  right->addWidget(m_plot, 1);
  right->addWidget(m_note);
  right->addWidget(m_message);
  auto csv = [this](const QString& path, QString* error) { return writeCsv(path, error); };
  widgets::installExportMenu(m_plot->plot(), "compare-curves", csv);
  side->addWidget(widgets::makeExportButton(m_plot->plot(), "compare-curves", csv, this));
  layout->addLayout(side);
  layout->addLayout(right, 1);
  connect(m_keys, &QListWidget::itemChanged, this, [this] { redraw(); });
  connect(m_replicas, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { redraw(); });
  redraw();
}

void CurvesTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  // In the Metrics tab's order: losses, accuracies, efficiency, optimizer, branch statistics
  // last, numbers in names in numeric order (branch_rms/l2 before l10).
  const QStringList keys = m_runs ? orderedMetricKeys(unionOfKeys(*m_runs)) : QStringList{};
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

void CurvesTab::setReplicaView(ReplicaView view) { m_replicas->setCurrentIndex(static_cast<int>(view)); }

ReplicaView CurvesTab::replicaView() const { return static_cast<ReplicaView>(m_replicas->currentIndex()); }

bool CurvesTab::readCurve(const LoadedRun& run, const std::string& key, ReplicaCurve& out, QString* problem) const {
  QString error;
  store::Store* s = m_cache.store(run.ref.storePath, &error);
  if (!s) {
    *problem = error;
    return false;
  }
  try {
    // The same step buckets twice, once with tokens and once with wall time as x.
    const auto tokens = s->read_metric(run.ref.runId, key, kBuckets, store::XAxis::Tokens);
    const auto wall = s->read_metric(run.ref.runId, key, kBuckets, store::XAxis::WallMs);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      out.step.push_back(static_cast<double>(tokens[i].step_last));
      out.tokens.push_back(tokens[i].x_last);
      out.wall.push_back(i < wall.size() ? wall[i].x_last / 1000.0 : 0.0);
      out.value.push_back(tokens[i].last);
    }
  } catch (const std::exception& e) {
    *problem = tr("%1, %2: %3").arg(run.label, QString::fromStdString(key), QString::fromUtf8(e.what()));
    return false;
  }
  return true;
}

QString CurvesTab::drawUnit(const CompareUnit& unit, const QColor& color, const QStringList& keys, int k,
                            QStringList& problems) {
  const std::string key = keys[k].toStdString();
  std::vector<ReplicaCurve> curves;
  for (std::size_t i : unit.members) {
    const LoadedRun& run = (*m_runs)[i];
    if (!run.summaries.count(key)) continue;
    ReplicaCurve c;
    QString problem;
    if (readCurve(run, key, c, &problem)) curves.push_back(std::move(c));
    else problems << problem;
  }
  if (curves.empty()) return {};
  // The first metric's series is named by the run alone (its legend entry stands for the run;
  // the line style says the metric); the others "run · metric".
  const QString name = k > 0 ? QStringLiteral("%1 · %2").arg(unit.label, keys[k]) : unit.label;
  // Evaluations are drawn raw, as in the live view (a smoothed val/loss ends above its value).
  m_plot->setSeriesKind(name, widgets::metricSeriesKind(keys[k]));
  if (!unit.grouped) {
    const ReplicaCurve& c = curves.front();
    m_plot->setSeries(name, c.step, c.tokens, c.wall, c.value, color);
  } else {
    const BandKind band = replicaView() == ReplicaView::MeanMinMaxBand ? BandKind::MinMax : BandKind::Std;
    const GroupCurve g = aggregateCurves(curves, band);
    m_plot->setSeries(name, g.step, g.tokens, g.wall, g.mean, color);
    m_plot->setBand(name, g.low, g.high);
  }
  // One line style per key: on the series' legend graph (the smoothed one).
  for (int gi = 0; gi < m_plot->plot()->graphCount(); ++gi) {
    QCPGraph* graph = m_plot->plot()->graph(gi);
    if (graph->name() != name) continue;
    QPen pen = graph->pen();
    pen.setStyle(kKeyStyles[k % 4]);
    graph->setPen(pen);
  }
  return name;
}

void CurvesTab::redraw() {
  m_plot->clearSeries();
  m_names.clear();
  const QStringList keys = selectedKeys();
  QStringList problems;
  const int runCount = m_runs ? static_cast<int>(m_runs->size()) : 0;
  const std::vector<CompareUnit> units = !m_runs ? std::vector<CompareUnit>{}
                                         : replicaView() == ReplicaView::EachRun ? singleRunUnits(*m_runs)
                                                                                 : compareUnits(*m_runs);
  bool grouped = false;
  ModelColorPicker colors;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const LoadedRun& first = (*m_runs)[units[u].members.front()];
    if (!first.ok()) {
      problems << first.error;
      continue;
    }
    grouped = grouped || units[u].grouped;
    const QColor color = colors.next(first);
    for (int k = 0; k < keys.size(); ++k) {
      const QString name = drawUnit(units[u], color, keys, k, problems);
      if (!name.isEmpty()) m_names << name;
    }
  }
  m_plot->setYLabel(metricAxisTitle(keys));
  // One legend entry per run (its first metric's line); the line style says the metric.
  QStringList notes;
  if (keys.size() > 1) {
    QCustomPlot* plot = m_plot->plot();
    for (int gi = 0; gi < plot->graphCount(); ++gi) {
      const QString n = plot->graph(gi)->name();
      for (int k = 1; k < keys.size(); ++k)
        if (n.endsWith(QStringLiteral(" · ") + keys[k])) plot->graph(gi)->removeFromLegend();
    }
    static const char* const kStyleNames[] = {"solid", "dashed", "dotted", "dash-dot"};
    QStringList styles;
    for (int k = 0; k < keys.size(); ++k) styles << tr("%1 %2").arg(tr(kStyleNames[k % 4]), keys[k]);
    notes << tr("Line style: %1 (one legend entry per run, in its colour).").arg(styles.join(", "));
  }
  if (grouped)
    notes << tr("Groups of seeded replicas: the mean over the replicas at each step (a replica's value between "
                "two of its points is interpolated), with a band of %1; the band closes where one replica "
                "remains.").arg(replicaView() == ReplicaView::MeanMinMaxBand ? tr("the lowest to the highest replica")
                                                                             : tr("±1 sample standard deviation"));
  m_note->setText(notes.join(' '));
  m_note->setVisible(!notes.isEmpty() && !m_names.isEmpty());
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

std::vector<double> CurvesTab::bandLow(int curve) const { return m_plot->drawnBandLow(curveName(curve)); }

std::vector<double> CurvesTab::bandHigh(int curve) const { return m_plot->drawnBandHigh(curveName(curve)); }

QString CurvesTab::emptyMessage() const { return m_message->isHidden() ? QString() : m_message->text(); }

QCustomPlot* CurvesTab::plot() const { return m_plot->plot(); }

bool CurvesTab::writeCsv(const QString& path, QString* error) const {
  std::vector<runtime::MetricCsvSeries> series;
  const QStringList keys = selectedKeys();
  if (m_runs) {
    for (const auto& run : *m_runs) {
      QString openError;
      store::Store* s = run.ok() ? m_cache.store(run.ref.storePath, &openError) : nullptr;
      if (!s) continue;
      for (const auto& key : keys) {
        if (!run.summaries.count(key.toStdString())) continue;
        try {
          series.push_back({run.ref.runId, key.toStdString(), s->read_metric_full(run.ref.runId, key.toStdString())});
        } catch (const std::exception& e) {
          if (error) *error = QString::fromUtf8(e.what());
          return false;
        }
      }
    }
  }
  return writeMetricsCsv(path, series, error);
}

}  // namespace pha::gui
