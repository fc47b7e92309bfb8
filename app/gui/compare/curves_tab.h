// Compare dock, Curves tab: the chosen metric keys of every compared run overlaid, one colour
// per run and one line style per key, drawn by the live view's widgets::CurvePlot (the same
// smoothing slider, x by step / tokens / wall time, log y). Curves are read from the store
// downsampled (about 2,000 buckets, each the last value of its step range; CurvePlot thins them
// to the plot width); the y axis is named after the metric; CSV export writes every stored point.
// Seeded replicas of one group (compare_groups.h) are drawn as their mean curve, aligned by step,
// with a band of ±1 std or min..max (the "Seeded replicas" choice), or each run on its own.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>

#include "gui/compare/compare_data.h"
#include "gui/compare/compare_groups.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QListWidget;

namespace pha::widgets {
class CurvePlot;
}  // namespace pha::widgets

namespace pha::gui {

// The y-axis title for the ticked keys: the metric without its split ("val/loss" ->
// "loss (nats/token)"), "a, b" when they measure different things.
QString metricAxisTitle(const QStringList& keys);

// How a group of seeded replicas is drawn (the order of the tab's combo box).
enum class ReplicaView { MeanStdBand = 0, MeanMinMaxBand = 1, EachRun = 2 };

class CurvesTab : public QWidget {
  Q_OBJECT
 public:
  CurvesTab(StoreCache& cache, QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setSelectedKeys(const QStringList& keys);  // keys not present are ignored
  QStringList selectedKeys() const;
  void setXAxis(pha::store::XAxis axis);
  void setReplicaView(ReplicaView view);
  ReplicaView replicaView() const;

  int curveCount() const;               // series drawn (one per run or group and ticked key)
  int pointCount(int curve) const;      // points read for it (a group: its aligned steps)
  QString curveName(int curve) const;   // "run", "group (3 seeds)", or either with " · key"
  std::vector<double> curveValues(int curve) const;  // as drawn (after smoothing)
  std::vector<double> bandLow(int curve) const;      // a group's band as drawn; empty otherwise
  std::vector<double> bandHigh(int curve) const;
  QString emptyMessage() const;
  QCustomPlot* plot() const;
  widgets::CurvePlot* curvePlot() const { return m_plot; }
  bool writeCsv(const QString& path, QString* error) const;  // every point of the shown curves

 private:
  void redraw();
  // Reads one run's stored curve of `key`; false with *problem set when it cannot.
  bool readCurve(const LoadedRun& run, const std::string& key, ReplicaCurve& out, QString* problem) const;
  // Draws one unit's curve of key k (a run as stored, a group as mean + band); returns the name.
  QString drawUnit(const CompareUnit& unit, const QColor& color, const QStringList& keys, int k, QStringList& problems);

  StoreCache& m_cache;
  std::shared_ptr<const LoadedRuns> m_runs;
  QListWidget* m_keys = nullptr;
  QComboBox* m_replicas = nullptr;
  QLabel* m_note = nullptr;
  widgets::CurvePlot* m_plot = nullptr;
  QLabel* m_message = nullptr;
  QStringList m_names;  // series in drawing order
};

}  // namespace pha::gui
