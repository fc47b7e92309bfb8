// The drawing of the Parallel tab (QPainter: hundreds of polylines redraw in a few ms): one
// vertical axis per ParallelAxis, one polyline per run coloured by the metric's sequential
// scale with its colour bar at the right. Dragging vertically on an axis brushes a range
// (brushes on several axes intersect; runs outside are drawn faded), a double-click on an
// axis clears its brush; dragging an axis title left or right moves the axis; hovering a
// line shows the run and its values. Everything the mouse does has a call, for tests.
#pragma once

#include <QHash>
#include <QPointF>
#include <QWidget>
#include <vector>

#include "widgets/parallel_coords_data.h"

namespace pha::widgets {

class ParallelCoordsView : public QWidget {
  Q_OBJECT
 public:
  explicit ParallelCoordsView(QWidget* parent = nullptr);

  // New runs or another metric: the axes keep their order where their keys stay; brushes are
  // cleared (their ranges meant other values).
  void setData(ParallelData data);
  const ParallelData& data() const { return m_data; }

  int axisCount() const { return static_cast<int>(m_data.axes.size()); }
  QStringList axisKeys() const;  // in the order drawn, left to right
  const ParallelAxis& axis(int i) const { return m_data.axes.at(static_cast<std::size_t>(i)); }
  void moveAxis(int from, int to);
  int currentAxis() const { return m_current; }  // the one Move left / right act on (-1: none)
  void setCurrentAxis(int i);

  // Brushes in axis positions (0 = bottom, 1 = top), or in the axis's values (a categorical
  // axis: category indexes).
  void setBrush(int axis, double lowPosition, double highPosition);
  void setBrushValues(int axis, double low, double high);
  void clearBrush(int axis);
  void clearBrushes();
  bool hasBrush(int axis) const;
  int brushCount() const { return static_cast<int>(m_brushes.size()); }
  std::vector<bool> keptRuns() const { return brushedRuns(m_data, m_brushes); }

  // Colours: the run's (grey without a metric value), the scale's best and worst ends.
  QColor runColor(int run) const;
  QColor bestColor() const { return sequentialColor(1.0); }
  QColor worstColor() const { return sequentialColor(0.0); }

  // Geometry, for tests that drive the mouse: an axis's x, a position's y.
  double axisX(int axis) const;
  double positionY(double position) const;
  double titleY() const;  // inside the title band
  // The run whose line passes within a few pixels of the point (-1: none); its readout.
  int runAt(const QPointF& point) const;
  QString hoverText(int run) const;
  QString axisToolTip(int axis) const;  // shown over the title: scale, and the keys it stands for

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  // The picture as on screen, for export (PNG / SVG).
  void paintInto(QPainter& painter, const QSize& size) const;

 signals:
  void brushChanged();
  void currentAxisChanged(int axis);
  void axesMoved();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  struct Frame {
    double left, right, top, bottom;  // the axes' x range and y extent
    double barX;                      // the colour bar's left edge
  };
  Frame frame(const QSize& size) const;
  double axisXIn(const Frame& f, int axis) const;
  int axisNear(double x, double tolerance) const;
  int slotAt(double x) const;  // where a dragged axis lands
  void recolor();
  void paintEmpty(QPainter& p, const QSize& size) const;
  void paintLines(QPainter& p, const Frame& f) const;
  void paintAxes(QPainter& p, const Frame& f) const;
  void paintColorBar(QPainter& p, const Frame& f) const;
  QStringList titleLines(const ParallelAxis& axis, double width) const;

  ParallelData m_data;
  std::vector<QColor> m_colors;   // per run
  std::vector<double> m_quality;  // per run, 0..1 (NaN: no metric value)
  QHash<QString, AxisBrush> m_brushes;
  int m_current = -1;
  int m_hover = -1;
  // Mouse state: a brush being drawn (axis, anchor position) or an axis being dragged.
  enum class Drag { None, Brush, Axis };
  Drag m_drag = Drag::None;
  int m_dragAxis = -1;
  double m_anchor = 0.0;
  QPointF m_press, m_mouse;
  bool m_moved = false;
};

}  // namespace pha::widgets
