// MatrixHeatmap: a general rows x columns colour map (QCustomPlot) for the Lens dock's views:
// knock-out deltas (diverging, centred on 0), a GSS kernel's |K(t)| (sequential, optionally a
// logarithmic colour scale) and attention weights. Row and column names label the axes (an
// empty name leaves that position without a tick); NaN cells are grey; small matrices print
// their values; hovering a cell shows the text a tooltip provider gives for it.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemText;
class QLabel;

namespace pha::widgets {

class MatrixHeatmap : public QWidget {
  Q_OBJECT
 public:
  enum class Scale { Sequential, Diverging };
  explicit MatrixHeatmap(QWidget* parent = nullptr);

  // values: row-major, rows x cols; row 0 is drawn at the top.
  void setMatrix(int rows, int cols, std::vector<float> values, const QStringList& rowNames,
                 const QStringList& colNames);
  // Colours: Sequential (viridis) over [lo, hi], or Diverging (blue - white - vermilion) over
  // [-hi, hi] when lo >= hi is given as automatic. logColors: a logarithmic colour scale (lo > 0).
  void setScale(Scale scale, double lo, double hi, bool logColors = false);
  void setColorLabel(const QString& label);
  void setAxisLabels(const QString& x, const QString& y);
  // Print each cell's value with this many decimals (when the matrix has at most kMaxLabelledCells).
  void setCellLabels(bool on, int decimals = 2);
  void setTickLabelRotation(double degrees);
  void setToolTipProvider(std::function<QString(int row, int col)> provider) { m_tip = std::move(provider); }
  void clear(const QString& message);

  int rows() const { return m_rows; }
  int cols() const { return m_cols; }
  double cellValue(int row, int col) const;
  QString cellText(int row, int col) const;
  // The tooltip of a cell (the provider's text), empty when none.
  QString cellToolTip(int row, int col) const { return m_tip && row >= 0 && col >= 0 ? m_tip(row, col) : QString(); }
  QString message() const;
  QCustomPlot* plot() const { return m_plot; }
  static constexpr int kMaxLabelledCells = 120;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void applyLabels();
  void clearLabels();
  // Tick labels thinned to every k-th row / column when they would overlap at the plot's size.
  void applyTicks();

  QCustomPlot* m_plot = nullptr;
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QLabel* m_message = nullptr;
  std::vector<QCPItemText*> m_labels;
  std::vector<float> m_values;
  QStringList m_rowNames, m_colNames;
  int m_tickRowStep = 0, m_tickColStep = 0;
  std::function<QString(int, int)> m_tip;
  Scale m_kind = Scale::Sequential;
  double m_lo = 0.0, m_hi = 1.0;
  bool m_log = false;
  bool m_cellLabels = false;
  int m_decimals = 2;
  int m_rows = 0, m_cols = 0;
};

}  // namespace pha::widgets
