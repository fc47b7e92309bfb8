#include "series_colors.h"

#include <QSet>
#include <qcustomplot.h>

#include "curve_plot.h"  // seriesColor: the palette

namespace pha::widgets {

namespace {
constexpr int kPaletteSize = 10;  // seriesColor's palette

// FNV-1a over the UTF-16 text: stable across runs and platforms (qHash is seeded per process).
int preferredIndex(const QString& key) {
  quint32 h = 2166136261u;
  for (QChar c : key) {
    h ^= c.unicode();
    h *= 16777619u;
  }
  return static_cast<int>(h % kPaletteSize);
}
}  // namespace

int StableColors::index(const QString& key) {
  auto it = m_index.constFind(key);
  if (it != m_index.constEnd()) return *it;
  QSet<int> taken;
  for (int v : std::as_const(m_index)) taken.insert(v);
  int i = preferredIndex(key);
  if (taken.size() < kPaletteSize)
    while (taken.contains(i)) i = (i + 1) % kPaletteSize;
  m_index.insert(key, i);
  return i;
}

QColor StableColors::color(const QString& key) { return seriesColor(index(key)); }

StableColors& modelColors() {
  static StableColors colors;  // GUI thread only
  return colors;
}

void placeLegendBelow(QCustomPlot* plot, int columns) {
  auto* row = new QCPLayoutGrid;
  plot->plotLayout()->addElement(1, 0, row);
  plot->plotLayout()->setRowStretchFactor(1, 0.001);  // as small as its contents allow
  row->setMargins(QMargins(4, 0, 4, 4));
  plot->axisRect()->insetLayout()->take(plot->legend);
  row->addElement(0, 0, plot->legend);
  plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot->legend->setWrap(columns);
  plot->legend->setBorderPen(Qt::NoPen);
  showLegendIfAny(plot);
}

int legendEntries(QCustomPlot* plot) {
  int n = 0;
  for (int i = 0; i < plot->plottableCount(); ++i) n += plot->legend->hasItemWithPlottable(plot->plottable(i)) ? 1 : 0;
  return n;
}

// (QCPLegend::itemCount counts the empty cells of a wrapped grid too.)
void showLegendIfAny(QCustomPlot* plot) { plot->legend->setVisible(legendEntries(plot) > 0); }

}  // namespace pha::widgets
