// CurvePlot: metric curves (loss, perplexity, accuracy, ...) of one or more runs, with a
// smoothing slider (debiased EMA over every point, then thinned to the plot width; the raw
// curve stays faint behind), an x axis by step, tokens or wall time, and a log-scale toggle.
// Points can be appended live; drawing is throttled by the caller (replotLater()).
#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QSlider;
class QComboBox;
class QCheckBox;
class QLabel;

namespace pha::widgets {

class ReplotThrottle;

enum class CurveX { Step = 0, Tokens = 1, WallTime = 2 };

class CurvePlot : public QWidget {
  Q_OBJECT
 public:
  explicit CurvePlot(const QString& yLabel, QWidget* parent = nullptr);

  // Replaces or creates a series (x in steps, tokens and seconds, one y per point).
  void setSeries(const QString& name, const std::vector<double>& steps, const std::vector<double>& tokens,
                 const std::vector<double>& wallSeconds, const std::vector<double>& values, QColor color = {});
  void appendPoint(const QString& name, double step, double tokens, double wallSeconds, double value,
                   QColor color = {});
  void removeSeries(const QString& name);
  void clearSeries();

  void setSmoothing(double weight);  // 0 .. 0.99
  double smoothing() const { return m_smoothing; }
  void setXAxis(CurveX x);
  CurveX xAxis() const { return m_x; }
  void setLogY(bool on);
  void setYLabel(const QString& label);
  void setEmptyMessage(const QString& message);

  int seriesCount() const { return static_cast<int>(m_series.size()); }
  int pointCount(const QString& name) const;
  // What is drawn for a series after smoothing and thinning (for tests and export).
  std::vector<double> drawnSmoothed(const QString& name) const;
  QCustomPlot* plot() const { return m_plot; }

  // Rebuilds the drawn graphs from the data and queues a replot (cheap to call often: the plot
  // redraws at most ~30 times a second, ReplotThrottle).
  void replotLater();

 private:
  struct Data {
    std::vector<double> step, tokens, wall, value;
    QColor color;
    QCPGraph* raw = nullptr;
    QCPGraph* smooth = nullptr;
  };
  Data& ensure(const QString& name, QColor color);
  void rebuild(Data& d);
  const std::vector<double>& xs(const Data& d) const;

  QCustomPlot* m_plot = nullptr;
  ReplotThrottle* m_throttle = nullptr;
  QSlider* m_slider = nullptr;
  QComboBox* m_xCombo = nullptr;
  QCheckBox* m_logY = nullptr;
  QLabel* m_message = nullptr;
  QHash<QString, Data> m_series;
  double m_smoothing = 0.6;
  CurveX m_x = CurveX::Step;
  int m_colorIndex = 0;
};

// A qualitative colour per index (run or series), readable on light and dark backgrounds.
QColor seriesColor(int index);

}  // namespace pha::widgets
