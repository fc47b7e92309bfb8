// InferenceMemoryChart: the memory of incremental decoding at one prompt length, one horizontal
// stacked bar per model: weights, KV cache, GSS state and the rest (activations, workspace,
// allocator slack), in MiB, with the total at the bar's end. Hovering a bar shows every figure
// of the point and the allocated-vs-formula check of its KV cache and GSS state.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QMouseEvent;

namespace pha::widgets {

class PlotPanel;

struct MemoryBar {
  QString model;
  double weights = 0, kvCache = 0, gssState = 0, rest = 0;  // MiB
  QString tooltip;
  double total() const { return weights + kvCache + gssState + rest; }
};

class InferenceMemoryChart : public QWidget {
  Q_OBJECT
 public:
  explicit InferenceMemoryChart(QWidget* parent = nullptr);

  // Bars top to bottom in the given order; `emptyMessage` is shown when there are none.
  void setBars(std::vector<MemoryBar> bars, const QString& emptyMessage = {});
  const std::vector<MemoryBar>& bars() const { return m_bars; }
  // The tooltip of the bar at a pixel of the plot ("" when none is there).
  QString tooltipAt(const QPointF& pixel) const;
  QCustomPlot* plot() const;
  PlotPanel* panel() const { return m_panel; }
  static QColor partColor(int part);  // 0 weights, 1 KV cache, 2 GSS state, 3 rest

 private:
  void hover(QMouseEvent* event);

  PlotPanel* m_panel = nullptr;
  std::vector<MemoryBar> m_bars;
};

}  // namespace pha::widgets
