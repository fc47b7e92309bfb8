// Compare dock, Curves tab: the chosen metric keys of every compared run overlaid, one colour
// per run and one line style per key, drawn by the live view's widgets::CurvePlot (the same
// smoothing slider, x by step / tokens / wall time, log y). Curves are read from the store
// downsampled (about 2,000 buckets, each the last value of its step range; CurvePlot thins them
// to the plot width); the y axis is named after the metric; CSV export writes every stored point.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>

#include "compare_data.h"

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

class CurvesTab : public QWidget {
  Q_OBJECT
 public:
  CurvesTab(StoreCache& cache, QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setSelectedKeys(const QStringList& keys);  // keys not present are ignored
  QStringList selectedKeys() const;
  void setXAxis(pha::store::XAxis axis);

  int curveCount() const;               // series drawn (one per run and ticked key)
  int pointCount(int curve) const;      // points read for it
  QString curveName(int curve) const;   // "run" or "run · key"
  std::vector<double> curveValues(int curve) const;  // as drawn (after smoothing)
  QString emptyMessage() const;
  QCustomPlot* plot() const;
  widgets::CurvePlot* curvePlot() const { return m_plot; }
  bool writeCsv(const QString& path, QString* error) const;  // every point of the shown curves

 private:
  void redraw();

  StoreCache& m_cache;
  std::shared_ptr<const LoadedRuns> m_runs;
  QListWidget* m_keys = nullptr;
  widgets::CurvePlot* m_plot = nullptr;
  QLabel* m_message = nullptr;
  QStringList m_names;  // series in drawing order
};

}  // namespace pha::gui
