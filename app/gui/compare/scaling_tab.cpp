#include "scaling_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>

#include "analysis/report.h"  // kMaxCrossoverFactor
#include "analysis/scaling_fit.h"
#include "analysis/stats.h"
#include "export_menu.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "plot_export.h"
#include "plot_panel.h"
#include "series_colors.h"

namespace pha::gui {

namespace {

QString sci(double v) { return QString::number(v, 'g', 3); }

QString withInterval(double v, const analysis::Interval& i) {
  return i.valid() ? QStringLiteral("%1 [%2, %3]").arg(sci(v), sci(i.low), sci(i.high)) : sci(v);
}

struct Series {
  QString name;
  QColor color;
  // size -> setting (the run's replica group: runs that differ only in their seed) -> the
  // final values of its replicas
  std::map<double, std::map<QString, std::vector<double>>> settings;
  std::map<double, std::vector<double>> byX;  // size -> the chosen setting's replicas
  analysis::PowerLawFit fit;
};

// A run's setting: its replica group (seeds of one configuration share it), else its name.
QString settingOf(const LoadedRun& run) {
  return QString::fromStdString(run.info.group.empty() ? run.info.name : run.info.group);
}

// Each size at its best setting (the lowest mean final value: every metric offered is a loss),
// the other settings named in `notes`: settings are tuning points, not replicas.
void chooseSettings(Series& v, const QString& metric, QStringList& notes) {
  for (const auto& [x, settings] : v.settings) {
    const QString* best = nullptr;
    double bestMean = INFINITY;
    for (const auto& [name, ys] : settings) {
      const double m = analysis::summarize(ys).mean;
      if (m < bestMean) bestMean = m, best = &name;
    }
    if (!best) continue;
    v.byX[x] = settings.at(*best);
    if (settings.size() > 1) {
      QStringList others;
      for (const auto& [name, ys] : settings)
        if (&name != best)
          others << QObject::tr("%1 %2 (n=%3)").arg(name, sci(analysis::summarize(ys).mean)).arg(ys.size());
      notes << QObject::tr("%1 at %2: %3 settings; the point is the best on final %4, %5 %6 (n=%7); not used: %8")
                   .arg(v.name, sci(x)).arg(settings.size()).arg(metric, *best, sci(bestMean))
                   .arg(settings.at(*best).size()).arg(others.join(", "));
    }
  }
}

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

void ScalingTab::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  plot->clearPlottables();
  m_series = m_fitted = 0;
  const std::string key = m_metric->currentText().toStdString();
  const bool flops = m_x->currentIndex() == 1;
  m_panel->plot()->xAxis->setLabel(flops ? tr("training FLOPs (log)") : tr("parameters (log)"));
  m_panel->plot()->yAxis->setLabel(tr("final %1 (log)").arg(m_metric->currentText()));
  QStringList notes, lines;
  std::vector<Series> series;
  if (m_runs) {
    ModelColorPicker colors;
    for (const auto& run : *m_runs) {
      if (!run.ok()) continue;
      const auto s = run.summaries.find(key);
      if (s == run.summaries.end() || !std::isfinite(s->second.last)) continue;
      const std::optional<double> x =
          flops ? trainingFlops(run) : std::optional<double>(static_cast<double>(run.info.n_params));
      if (!x || !(*x > 0)) continue;
      const QString name = QString::fromStdString(run.info.variant.empty() ? run.info.name : run.info.variant);
      auto it = std::find_if(series.begin(), series.end(), [&](const Series& v) { return v.name == name; });
      if (it == series.end()) {
        series.push_back({name, colors.next(run), {}, {}});
        it = series.end() - 1;
      }
      it->settings[*x][settingOf(run)].push_back(s->second.last);
    }
  }
  QStringList choices;
  for (auto& v : series) chooseSettings(v, m_metric->currentText(), choices);
  double xLo = INFINITY, xHi = -INFINITY;
  for (auto& v : series) {
    ++m_series;
    std::vector<analysis::ScalingPoint> points;
    QCPGraph* dots = plot->addGraph();
    dots->setName(v.name);
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, v.color, v.color, 8));
    auto* bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
    bars->removeFromLegend();
    bars->setPen(QPen(v.color, 1.5));
    QVector<double> err;
    for (const auto& [x, ys] : v.byX) {
      const analysis::Stats st = analysis::summarize(ys);
      dots->addData(x, st.mean);
      err.push_back(st.n >= 2 ? st.std : 0.0);
      for (double y : ys) points.push_back({x, y});
      xLo = std::min(xLo, x), xHi = std::max(xHi, x);
    }
    bars->setDataPlottable(dots);
    bars->setData(err);
    if (v.byX.size() < 3) {
      lines << tr("%1: %2 size(s); a fit needs 3 or more").arg(v.name).arg(v.byX.size());
      continue;
    }
    analysis::FitOptions o;
    o.n_boot = 300;
    o.band_x = analysis::log_spaced(v.byX.begin()->first, v.byX.rbegin()->first, 40);
    v.fit = analysis::fit_power_law(points, o);
    if (!v.fit.ok) {
      lines << tr("%1: no fit (%2)").arg(v.name, QString::fromStdString(v.fit.message));
      continue;
    }
    ++m_fitted;
    QCPGraph* fit = plot->addGraph();
    fit->removeFromLegend();
    fit->setPen(QPen(v.color, 2.0));
    QCPGraph* lo = plot->addGraph();
    QCPGraph* hi = plot->addGraph();
    lo->removeFromLegend();
    hi->removeFromLegend();
    lo->setPen(Qt::NoPen);
    hi->setPen(Qt::NoPen);
    QColor fill = v.color;
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
    lines << tr("%1: E = %2, A = %3, alpha = %4; rmse %5 over %6 runs")
                 .arg(v.name, withInterval(v.fit.E, v.fit.E_ci), withInterval(v.fit.A, v.fit.A_ci),
                      withInterval(v.fit.alpha, v.fit.alpha_ci), sci(v.fit.rmse))
                 .arg(v.fit.n);
  }
  for (size_t i = 0; i < series.size(); ++i)
    for (size_t j = i + 1; j < series.size(); ++j) {
      if (!series[i].fit.ok || !series[j].fit.ok) continue;
      // As the report (docs/report.md, "Scaling fits"): between the larger of the two smallest
      // sizes and kMaxCrossoverFactor times the smaller of the two largest, never further.
      const double lo = std::max(series[i].byX.begin()->first, series[j].byX.begin()->first);
      const double hi =
          analysis::kMaxCrossoverFactor * std::min(series[i].byX.rbegin()->first, series[j].byX.rbegin()->first);
      const analysis::Crossover c = analysis::crossover(series[i].fit, series[j].fit, lo, hi);
      QString text = tr("%1 vs %2: ").arg(series[i].name, series[j].name);
      if (!c.found) {
        text += QString::fromStdString(c.message);
      } else {
        text += tr("fitted curves cross at %1").arg(withInterval(c.x, c.ci));
        text += tr(" (%1% of bootstrap pairs cross in %2 to %3)").arg(sci(100 * c.fraction_crossing), sci(lo), sci(hi));
      }
      lines << text;
    }
  if (!m_runs || m_runs->empty())
    notes << tr("Select saved runs of several sizes (a width ladder, e.g. projects/scaling) to fit loss against size.");
  else if (m_series == 0)
    notes << tr("None of the compared runs has a final %1 and a %2.")
                 .arg(m_metric->currentText(), flops ? tr("training FLOP count") : tr("parameter count"));
  widgets::showLegendIfAny(plot);
  if (m_series > 0) {
    plot->rescaleAxes();
    plot->xAxis->setRange(xLo / 1.5, xHi * 1.5);
    const QCPRange y = plot->yAxis->range();
    plot->yAxis->setRange(y.lower / 1.03, y.upper * 1.03);
  }
  if (!choices.isEmpty())
    lines << tr("Runs of one size that differ in more than their seed are settings (a learning-rate grid), not "
                "replicas: each size is drawn at its best setting, its seeds as the error bar.")
          << choices;
  m_summary->setText(lines.join('\n'));
  m_panel->setEmptyMessage(notes.join('\n'));
  plot->replot(QCustomPlot::rpQueuedReplot);
}

QString ScalingTab::summary() const { return m_summary->text(); }

QString ScalingTab::emptyMessage() const { return m_panel->emptyMessage(); }

QCustomPlot* ScalingTab::plot() const { return m_panel->plot(); }

}  // namespace pha::gui
