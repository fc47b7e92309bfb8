#include "widgets/efficiency_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <qcustomplot.h>
#include <set>

#include "widgets/plot_panel.h"

namespace pha::widgets {

EfficiencyPanel::EfficiencyPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Phase:"), this));
  m_phase = new QComboBox(this);
  m_phase->setObjectName("efficiencyPhase");
  row->addWidget(m_phase);
  row->addStretch(1);
  layout->addLayout(row);
  auto* split = new QSplitter(Qt::Vertical, this);
  auto* plots = new QSplitter(Qt::Horizontal, split);
  m_tps = new PlotPanel(tr("sequence length T"), tr("tokens / s"), plots);
  m_mem = new PlotPanel(tr("sequence length T"), tr("peak memory (MB)"), plots);
  for (PlotPanel* p : {m_tps, m_mem}) {
    p->setLogX(true);
    p->setLogY(true);
    p->plot()->legend->setFont(QFont(font().family(), 8));
    // Under the axes, not over the curves; both plots keep one so their axes line up.
    placeLegendBelow(p->plot(), 3);
  }
  // Throughput and memory side by side, equally wide (not by size hint: the empty-state message
  // would make the first one wider for good).
  plots->setStretchFactor(0, 1);
  plots->setStretchFactor(1, 1);
  plots->setSizes({1000, 1000});
  m_table = new QTableWidget(split);
  m_table->setObjectName("efficiencyTable");
  m_table->setColumnCount(6);
  m_table->setHorizontalHeaderLabels({tr("Variant"), tr("Phase"), tr("T"), tr("Batch"), tr("tokens/s"), tr("peak MB")});
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSortingEnabled(true);
  split->setStretchFactor(0, 3);  // the plots get most of the height, the table the rest
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
  m_method = new QLabel(this);
  m_method->setWordWrap(true);
  layout->addWidget(m_method);
  connect(m_phase, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  setSeries({});
}

void EfficiencyPanel::setSeries(std::vector<EfficiencySeries> series) {
  m_series = std::move(series);
  std::set<QString> phases;
  for (auto& s : m_series)
    for (auto& r : s.rows) phases.insert(QString::fromStdString(r.phase));
  const QString keep = m_phase->currentText();
  {
    QSignalBlocker block(m_phase);
    m_phase->clear();
    for (auto& p : phases) m_phase->addItem(p);
    const int i = m_phase->findText(keep.isEmpty() ? "train" : keep);
    if (i >= 0) m_phase->setCurrentIndex(i);
  }
  redraw();
}

// Both plots and the table are filled from one pass over the rows so
// that their series and colours agree.
void EfficiencyPanel::redraw() {
  const QString phase = m_phase->currentText();
  m_tps->plot()->clearGraphs();
  m_mem->plot()->clearGraphs();
  m_table->setSortingEnabled(false);
  m_table->setRowCount(0);
  QStringList methods;
  for (auto& s : m_series) {
    std::vector<store::PerfRow> rows;
    for (auto& r : s.rows)
      if (QString::fromStdString(r.phase) == phase) rows.push_back(r);
    std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.seq_len < b.seq_len; });
    if (rows.empty()) continue;
    const QColor c = modelColor(s.label);
    // Every series here is a profile: "profile: pha-tiny" reads as "pha-tiny" in the legend and table.
    const QString shown = s.label.startsWith(QLatin1String("profile: ")) ? s.label.mid(9) : s.label;
    auto* g1 = m_tps->plot()->addGraph();
    auto* g2 = m_mem->plot()->addGraph();
    for (auto* g : {g1, g2}) {
      g->setName(shown);
      g->setPen(QPen(c, 2));
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    }
    for (auto& r : rows) {
      g1->addData(static_cast<double>(r.seq_len), r.tokens_per_s);
      if (r.peak_bytes > 0) g2->addData(static_cast<double>(r.seq_len), r.peak_bytes / 1e6);
      const int row = m_table->rowCount();
      m_table->insertRow(row);
      auto num = [](double v) {
        auto* it = new QTableWidgetItem;
        it->setData(Qt::DisplayRole, v);
        return it;
      };
      m_table->setItem(row, 0, new QTableWidgetItem(shown));
      m_table->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(r.phase)));
      m_table->setItem(row, 2, num(static_cast<double>(r.seq_len)));
      m_table->setItem(row, 3, num(static_cast<double>(r.batch)));
      m_table->setItem(row, 4, num(std::round(r.tokens_per_s)));
      m_table->setItem(row, 5, num(std::round(r.peak_bytes / 1e5) / 10.0));
      const QString m = QString::fromStdString(r.method);
      if (!m.isEmpty() && !methods.contains(m)) methods << m;
    }
  }
  m_table->setSortingEnabled(true);
  const bool empty = m_tps->plot()->graphCount() == 0;
  m_tps->setEmptyMessage(empty ? tr("No efficiency measurements yet: run the profiler (pha bench, or "
                                    "Run > Measure efficiency).")
                               : QString());
  // Nothing measured: the message alone, not two empty log-log frames whose default ticks ran
  // together ("0.0.01.11") in a small dock.
  m_tps->plot()->setVisible(!empty);
  m_mem->setVisible(!empty);
  for (PlotPanel* p : {m_tps, m_mem}) {
    showLegendIfAny(p->plot());
    if (!empty) {
      p->plot()->rescaleAxes();
      // Both axes are logarithmic: a factor of margin keeps the end points off the frame.
      for (QCPAxis* axis : {p->plot()->xAxis, p->plot()->yAxis}) {
        const QCPRange r = axis->range();
        axis->setRange(r.lower / 1.1, r.upper * 1.1);
      }
    }
    p->plot()->replot(QCustomPlot::rpQueuedReplot);
  }
  m_method->setText(methods.isEmpty() ? QString() : tr("Method: %1").arg(methods.join("; ")));
}

QColor EfficiencyPanel::colorOf(const QString& label) const {
  const QString shown = label.startsWith(QLatin1String("profile: ")) ? label.mid(9) : label;
  for (int i = 0; i < m_tps->plot()->graphCount(); ++i)
    if (m_tps->plot()->graph(i)->name() == shown) return m_tps->plot()->graph(i)->pen().color();
  return {};
}

int EfficiencyPanel::curveCount() const { return m_tps->plot()->graphCount(); }
int EfficiencyPanel::tableRows() const { return m_table->rowCount(); }

}  // namespace pha::widgets
