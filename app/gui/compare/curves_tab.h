// Compare dock, Curves tab: the chosen metric keys of every compared run overlaid, one colour
// per run and one line style per key, x by step, tokens or wall time. Curves are read from the
// store downsampled to about the plot's width; CSV export writes every stored point.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>

#include "compare_data.h"

class QComboBox;
class QCustomPlot;
class QListWidget;

namespace pha::widgets {
class PlotPanel;
}  // namespace pha::widgets

namespace pha::gui {

class CurvesTab : public QWidget {
  Q_OBJECT
 public:
  CurvesTab(StoreCache& cache, QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setSelectedKeys(const QStringList& keys);  // keys not present are ignored
  QStringList selectedKeys() const;
  void setXAxis(pha::store::XAxis axis);

  int curveCount() const;
  int pointCount(int curve) const;
  QString curveName(int curve) const;
  QString emptyMessage() const;
  QCustomPlot* plot() const;
  bool writeCsv(const QString& path, QString* error) const;  // every point of the shown curves

 private:
  void redraw();

  StoreCache& m_cache;
  std::shared_ptr<const LoadedRuns> m_runs;
  QListWidget* m_keys = nullptr;
  QComboBox* m_xAxis = nullptr;
  widgets::PlotPanel* m_panel = nullptr;
};

}  // namespace pha::gui
