// PlotPanel: a QCustomPlot with axis titles, optional log axes and an empty-state message,
// the base of the live-curve, efficiency and comparison plots.
#pragma once

#include <QString>
#include <QWidget>

class QCustomPlot;
class QLabel;

namespace pha::widgets {

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  PlotPanel(const QString& xLabel, const QString& yLabel, QWidget* parent = nullptr);

  void setLogX(bool on);
  void setLogY(bool on);
  void setEmptyMessage(const QString& message);  // shown while the plot has no data
  QString emptyMessage() const;
  QCustomPlot* plot() const { return m_plot; }

 private:
  QCustomPlot* m_plot = nullptr;
  QLabel* m_message = nullptr;
};

// Replots `plot` (queued) when it has a size. A plot laid out at zero size (a tab not shown
// yet) is drawn when it gets its size (QCustomPlot replots on resize); replotting it now only
// warns "inactive painter".
void replotIfSized(QCustomPlot* plot);

}  // namespace pha::widgets
