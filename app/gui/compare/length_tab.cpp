#include "gui/compare/length_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <qcustomplot.h>

#include "widgets/export_menu.h"
#include "widgets/plot_export.h"
#include "widgets/plot_panel.h"
#include "widgets/series_colors.h"

namespace pha::gui {

LengthTab::LengthTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Evaluation"), this));
  m_series = new QComboBox(this);
  m_series->setObjectName("lengthSeries");
  m_series->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  top->addWidget(m_series);
  top->addStretch(1);
  m_panel = new widgets::PlotPanel(tr("sequence length T"), tr("value"), this);
  m_panel->setObjectName("compareLength");
  m_panel->setLogX(true);
  m_series->setToolTip(tr("Which evaluation (task or split, and metric) to plot against T"));
  top->addWidget(widgets::makeExportButton(m_panel->plot(), "compare-length", {}, this));
  widgets::installExportMenu(m_panel->plot(), "compare-length");
  layout->addLayout(top);
  layout->addWidget(m_panel, 1);
  connect(m_series, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  redraw();
}

void LengthTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  const QString previous = m_series->currentText();
  std::map<QString, std::set<std::int64_t>> lengths;  // series -> the lengths evaluated
  {
    QSignalBlocker block(m_series);
    m_series->clear();
    if (m_runs) {
      for (const auto& run : *m_runs) {
        for (const auto& e : run.evals) {
          if (e.seq_len <= 0) continue;
          const QString task = QString::fromStdString(e.task), metric = QString::fromStdString(e.metric);
          const QString text = QStringLiteral("%1 · %2").arg(task, metric);
          if (m_series->findText(text) < 0) m_series->addItem(text, QStringList{task, metric});
          lengths[text].insert(e.seq_len);
        }
      }
    }
    // Keep the user's choice; else the first evaluation that was run at several lengths.
    int pick = m_series->findText(previous);
    for (int i = 0; i < m_series->count() && pick < 0; ++i)
      if (lengths[m_series->itemText(i)].size() > 1) pick = i;
    m_series->setCurrentIndex(std::max(0, pick));
  }
  redraw();
}

void LengthTab::setSeries(const QString& task, const QString& metric) {
  m_series->setCurrentIndex(m_series->findText(QStringLiteral("%1 · %2").arg(task, metric)));
}

void LengthTab::redraw() {
  QCustomPlot* plot = m_panel->plot();
  plot->clearGraphs();
  const QStringList pick = m_series->currentData().toStringList();
  QStringList notes;
  const int runCount = m_runs ? static_cast<int>(m_runs->size()) : 0;
  if (pick.size() == 2) {
    const std::string task = pick[0].toStdString(), metric = pick[1].toStdString();
    ModelColorPicker colors;
    for (int r = 0; r < runCount; ++r) {
      const LoadedRun& run = (*m_runs)[static_cast<std::size_t>(r)];
      // seq_len -> (step, value), keeping the latest step.
      std::map<std::int64_t, std::pair<std::int64_t, double>> byLength;
      for (const auto& e : run.evals) {
        if (e.seq_len <= 0 || e.task != task || e.metric != metric) continue;
        auto it = byLength.find(e.seq_len);
        if (it == byLength.end() || e.step >= it->second.first) byLength[e.seq_len] = {e.step, e.value};
      }
      if (byLength.empty()) {
        notes << (run.ok() ? tr("%1: no %2 evaluations").arg(run.label, m_series->currentText()) : run.error);
        continue;
      }
      QCPGraph* g = plot->addGraph();
      g->setName(run.label);
      const QColor color = colors.next(run);
      g->setPen(QPen(color, 2.0));
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, 7));
      for (const auto& [len, sv] : byLength) g->addData(double(len), sv.second);
    }
    plot->yAxis->setLabel(pick[1]);
  }
  std::set<double> drawnLengths;
  for (int g = 0; g < plot->graphCount(); ++g)
    for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it) drawnLengths.insert(it->key);
  if (drawnLengths.size() == 1)
    notes.prepend(tr("No length sweep in these runs: %1 was evaluated at T = %2 only. Add data.sweeps [\"length\"] "
                     "(task projects), or evaluate at other lengths with pha eval --run ID --lengths 64,128,256,512.")
                      .arg(m_series->currentText())
                      .arg(qint64(*drawnLengths.begin())));
  widgets::showLegendIfAny(plot);
  if (plot->graphCount() > 0) {
    // Tick exactly the evaluated lengths (usually powers of two), not decades.
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int g = 0; g < plot->graphCount(); ++g)
      for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it)
        ticks->addTick(it->key, QString::number(qint64(it->key)));
    plot->xAxis->setTicker(ticks);
    plot->rescaleAxes();
    const QCPRange x = plot->xAxis->range();
    plot->xAxis->setRange(x.lower / 1.3, x.upper * 1.3);
    widgets::padAxisRange(plot->yAxis, 0.08);
  }
  if (runCount == 0) notes << tr("Select two or more saved runs to compare length generalization.");
  else if (m_series->count() == 0)
    notes << tr("No length sweep in these runs: none was evaluated at a sequence length. Add data.sweeps "
                "[\"length\"] (task projects), or run pha eval --run ID --lengths 64,128,256,512.");
  m_panel->setEmptyMessage(notes.join('\n'));
  plot->replot(QCustomPlot::rpQueuedReplot);
}

int LengthTab::curveCount() const { return m_panel->plot()->graphCount(); }

int LengthTab::pointCount(int curve) const {
  QCustomPlot* plot = m_panel->plot();
  return curve >= 0 && curve < plot->graphCount() ? plot->graph(curve)->dataCount() : 0;
}

QString LengthTab::emptyMessage() const { return m_panel->emptyMessage(); }
QCustomPlot* LengthTab::plot() const { return m_panel->plot(); }

}  // namespace pha::gui
