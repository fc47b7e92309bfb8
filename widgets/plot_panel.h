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

}  // namespace pha::widgets
