#include "gui/compare/scaling_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "widgets/export_menu.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "widgets/plot_export.h"
#include "widgets/plot_panel.h"
#include "gui/compare/scaling_series.h"
#include "widgets/series_colors.h"

namespace pha::gui {

namespace {

// A run's setting: its replica group (seeds of one configuration share it), else its name.
std::string settingOf(const LoadedRun& run) { return run.info.group.empty() ? run.info.name : run.info.group; }

}  // namespace

std::optional<double> trainingFlops(const LoadedRun& run) {
  const auto loss = run.summaries.find("train/loss");
  if (loss == run.summaries.end() || loss->second.last_step <= 0 || !run.config.is_object() ||
      !run.config.contains("model") || !run.config.contains("training"))
    return std::nullopt;
  try {
    nlohmann::json m = run.config.at("model");
    pha::model::apply_saved_model_defaults(m);
    const pha::model::ModelConfig c = pha::model::model_config_from_json(m);
    const auto& t = run.config.at("training");
    const int T = t.value("seq_len", 256), B = t.value("batch_size", 8), accum = t.value("grad_accum", 1);
    const double tokens = static_cast<double>(loss->second.last_step) * T * B * accum * std::max(1, run.info.world_size);
    return tokens * pha::model::estimate_flops(c, T, B).training.total();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

ScalingTab::ScalingTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Final"), this));
  m_metric = new QComboBox(this);
  m_metric->setObjectName("scalingMetric");
  for (const char* k : {"val/loss", "val/bpb", "test/loss", "test/bpb", "train/loss"}) m_metric->addItem(k);
  top->addWidget(m_metric);
  top->addWidget(new QLabel(tr("against"), this));
  m_x = new QComboBox(this);
  m_x->setObjectName("scalingX");
  m_x->addItem(tr("parameters"));
  m_x->addItem(tr("training FLOPs"));
  top->addWidget(m_x);
  auto* note = new QLabel(tr("one series per variant, each size at its best setting (seeds as replicas); lines: L = E + A x^-alpha with its 95% bootstrap band"), this);
  note->setEnabled(false);
  note->setWordWrap(true);  // wraps in a narrow dock instead of widening it
  top->addWidget(note, 1);
  m_panel = new widgets::PlotPanel(tr("parameters"), tr("final val/loss"), this);
  m_panel->setObjectName("compareScaling");
  m_panel->setLogX(true);
  m_panel->setLogY(true);
  top->addWidget(widgets::makeExportButton(m_panel->plot(), "compare-scaling", {}, this));
  widgets::installExportMenu(m_panel->plot(), "compare-scaling");
  layout->addLayout(top);
  layout->addWidget(m_panel, 1);
  m_summary = new QLabel(this);
  m_summary->setObjectName("scalingSummary");
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(m_x, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  redraw();
}

void ScalingTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  redraw();
}

void ScalingTab::setAxes(const QString& metric, bool flops) {
  QSignalBlocker a(m_metric), b(m_x);
  m_metric->setCurrentText(metric);
  m_x->setCurrentIndex(flops ? 1 : 0);
  redraw();
}

// What to draw (the series, each size at its best setting, the fits, the crossovers and the
// summary's lines) is scalingView's (scaling_series.h, Qt-free and unit-tested); this draws it.
void ScalingTab::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  plot->clearPlottables();
  const std::string key = m_metric->currentText().toStdString();
  const bool flops = m_x->currentIndex() == 1;
  m_panel->plot()->xAxis->setLabel(flops ? tr("training FLOPs (log)") : tr("parameters (log)"));
  m_panel->plot()->yAxis->setLabel(tr("final %1 (log)").arg(m_metric->currentText()));
  std::vector<ScalingInput> inputs;
  std::vector<const LoadedRun*> inputRuns;
  if (m_runs) {
    for (const auto& run : *m_runs) {
      if (!run.ok()) continue;
      const auto s = run.summaries.find(key);
      if (s == run.summaries.end() || !std::isfinite(s->second.last)) continue;
      const std::optional<double> x =
          flops ? trainingFlops(run) : std::optional<double>(static_cast<double>(run.info.n_params));
      if (!x || !(*x > 0)) continue;
      inputs.push_back({run.info.variant.empty() ? run.info.name : run.info.variant, settingOf(run), *x, s->second.last});
      inputRuns.push_back(&run);
    }
  }
  const ScalingView view = scalingView(inputs, key);
  m_series = static_cast<int>(view.series.size());
  m_fitted = view.fitted;
  ModelColorPicker colors;
  for (const ScalingSeries& v : view.series) {
    const QColor color = colors.next(*inputRuns[v.first_input]);
    QCPGraph* dots = plot->addGraph();
    dots->setName(QString::fromStdString(v.name));
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 8));
    auto* bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
    bars->removeFromLegend();
    bars->setPen(QPen(color, 1.5));
    QVector<double> err;
    for (std::size_t i = 0; i < v.x.size(); ++i) {
      dots->addData(v.x[i], v.mean[i]);
      err.push_back(v.err[i]);
    }
    bars->setDataPlottable(dots);
    bars->setData(err);
    if (!v.fit.ok) continue;
    QCPGraph* fit = plot->addGraph();
    fit->removeFromLegend();
    fit->setPen(QPen(color, 2.0));
    QCPGraph* lo = plot->addGraph();
    QCPGraph* hi = plot->addGraph();
    lo->removeFromLegend();
    hi->removeFromLegend();
    lo->setPen(Qt::NoPen);
    hi->setPen(Qt::NoPen);
    QColor fill = color;
    fill.setAlpha(45);
    hi->setBrush(fill);
    hi->setChannelFillGraph(lo);
    for (const auto& b : v.fit.band) {
      fit->addData(b.x, b.fit);
      if (std::isfinite(b.low) && std::isfinite(b.high)) {
        lo->addData(b.x, b.low);
        hi->addData(b.x, b.high);
      }
    }
  }
  QStringList notes, lines;
  for (const std::string& line : view.lines) lines << QString::fromStdString(line);
  if (!m_runs || m_runs->empty())
    notes << tr("Select saved runs of several sizes (a width ladder, e.g. projects/scaling) to fit loss against size.");
  else if (m_series == 0)
    notes << tr("None of the compared runs has a final %1 and a %2.")
                 .arg(m_metric->currentText(), flops ? tr("training FLOP count") : tr("parameter count"));
  widgets::showLegendIfAny(plot);
  if (m_series > 0) {
    plot->rescaleAxes();
    plot->xAxis->setRange(view.x_lo / 1.5, view.x_hi * 1.5);
    const QCPRange y = plot->yAxis->range();
    plot->yAxis->setRange(y.lower / 1.03, y.upper * 1.03);
  }
  m_summary->setText(lines.join('\n'));
  m_panel->setEmptyMessage(notes.join('\n'));
  plot->replot(QCustomPlot::rpQueuedReplot);
}

QString ScalingTab::summary() const { return m_summary->text(); }

QString ScalingTab::emptyMessage() const { return m_panel->emptyMessage(); }

QCustomPlot* ScalingTab::plot() const { return m_panel->plot(); }

}  // namespace pha::gui
