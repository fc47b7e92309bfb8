// modelColor(name): the window's one colour per model (run family), used by every dock that draws
// a model (Compare's tabs, the Efficiency dock's Training and Inference tabs, the Search dock's
// rung chart) and so by their exports.
//
// StableColors: one colour per series key (a run or model name) that stays with the key for the
// life of the object, whatever order or subset of keys a redraw shows (the Efficiency dock's
// live points and the stored profile read back afterwards, say). A new key takes the palette
// colour its name hashes to when no other key holds it, else the next free one, so the same
// names usually get the same colours across sessions too. The palette is the live curves'
// (seriesColor); with more keys than colours, colours repeat.
//
// placeLegendBelow: moves a QCustomPlot's legend out of the axis rect into a row under it, so
// it never covers a curve; it is shown only while it has entries (no empty box).
#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>

class QCustomPlot;

namespace pha::widgets {

class StableColors {
 public:
  QColor color(const QString& key);
  int index(const QString& key);  // the palette index `key` holds (assigned on first use)
  void clear() { m_index.clear(); }
  // Gives `keys` the palette's colours in their order (a project's models in project.json's
  // order: the first blue, the second orange, ...), after the keys already held; a key held keeps
  // its colour. With replace, what was held is forgotten first (another project opened).
  void assignInOrder(const QStringList& keys, bool replace);

 private:
  QHash<QString, int> m_index;
};

// The window's one colour per model: the Efficiency dock and every Compare tab draw a model (a
// run's group or name; a profile run's model) in the colour this process-wide instance gives
// it, so pha-tiny is one colour in every dock.
StableColors& modelColors();
// The model (run family) a run, group, profile or inference run belongs to: its name without the
// grid setting and the confirmation mark ("pha-tiny/lr=0.003,confirm" -> "pha-tiny") and without
// a measurement's prefix ("profile: pha-tiny", "inference: pha-tiny" -> "pha-tiny").
QString modelFamily(const QString& name);
// The one colour of that model in every dock and export: modelColors().color(modelFamily(name)).
QColor modelColor(const QString& name);

void placeLegendBelow(QCustomPlot* plot, int columns);
// Plottables listed in the legend.
int legendEntries(QCustomPlot* plot);
// Shows the legend exactly when it lists something (call after adding or removing graphs).
void showLegendIfAny(QCustomPlot* plot);

}  // namespace pha::widgets
