#include "widgets/series_colors.h"

#include <QSet>
#include <qcustomplot.h>

#include "widgets/curve_plot.h"  // seriesColor: the palette

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

void StableColors::assignInOrder(const QStringList& keys, bool replace) {
  if (replace) m_index.clear();
  QSet<int> taken;
  for (int v : std::as_const(m_index)) taken.insert(v);
  int next = 0;
  for (const QString& key : keys) {
    if (m_index.contains(key)) continue;
    if (taken.size() >= kPaletteSize) return;  // more models than colours: the rest by index()
    while (taken.contains(next)) ++next;
    m_index.insert(key, next);
    taken.insert(next);
  }
}

QString modelFamily(const QString& name) {
  QString n = name.trimmed();
  for (const char* prefix : {"profile: ", "inference: "})
    if (n.startsWith(QLatin1String(prefix))) n = n.mid(static_cast<int>(qstrlen(prefix)));
  const int slash = n.indexOf('/');
  if (slash > 0) n = n.left(slash);
  if (n.endsWith(QLatin1String(",confirm"))) n.chop(8);
  return n;
}

QColor modelColor(const QString& name) { return modelColors().color(modelFamily(name)); }

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
