// CurvePlot: metric curves (loss, perplexity, accuracy, ...) of one or more runs, with a
// smoothing slider (its value shown beside it), an x axis by step, tokens or wall time, and a
// log-scale toggle. Points can be appended live; drawing is throttled by the caller
// (replotLater()).
//   - Dense series (a value every step: train/loss) are smoothed by a debiased EMA over every
//     point, then thinned to the plot width; the raw curve stays faint behind.
//   - Sparse series (evaluations: a few points) are drawn raw as points joined by lines, never
//     smoothed: an EMA over three points would move the last one (2.091 drawn as 2.157), and a
//     single point (a cancelled run's one evaluation) still shows.
//   - A series may have a shaded band (setBand: the Compare dock's spread of seeded replicas
//     around their mean).
//   - Every series' final raw value is marked with a dot and its number.
//   - Hovering shows, for every series under the cursor, the nearest point's step, tokens, wall
//     time, raw and smoothed value (hoverText(), shown as a tooltip).
// curve_plot.cpp: data, drawing, controls; curve_readout.cpp: hover readout and CSV.
#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QMouseEvent;
class QSlider;
class QComboBox;
class QCheckBox;
class QLabel;

namespace pha::widgets {

class ReplotThrottle;

enum class CurveX { Step = 0, Tokens = 1, WallTime = 2 };
enum class SeriesKind { Dense, Sparse };

// How a stored metric is drawn, by the engine's key names: evaluations ("val/...", "test/...":
// a point every eval_every steps) raw, as points joined by lines; every training-time series
// ("train/...", "branch_rms/...") smoothed. The live view and Compare both use this.
SeriesKind metricSeriesKind(const QString& key);

// One series as exported: every point held, with its x in all three units.
struct CurveData {
  QString name;
  SeriesKind kind = SeriesKind::Dense;
  std::vector<double> step, tokens, wall, value;
};

// step,tokens,wall_s, then per series "<name> raw" and, for dense series,
// "<name> smoothed (w=0.60)" (the EMA over every point at that weight). One row per step that
// any series has; a series without a point at that step leaves its cells empty.
bool writeCurvesCsv(const QString& path, const std::vector<CurveData>& series, double smoothing,
                    QString* error = nullptr);

class CurvePlot : public QWidget {
  Q_OBJECT
 public:
  explicit CurvePlot(const QString& yLabel, QWidget* parent = nullptr);

  // Replaces or creates a series (x in steps, tokens and seconds, one y per point).
  void setSeries(const QString& name, const std::vector<double>& steps, const std::vector<double>& tokens,
                 const std::vector<double>& wallSeconds, const std::vector<double>& values, QColor color = {});
  void appendPoint(const QString& name, double step, double tokens, double wallSeconds, double value,
                   QColor color = {});
  // A shaded band behind a series (low..high per point of the series, e.g. the spread of seeded
  // replicas around their mean), smoothed and thinned as the series is. Empty vectors remove it.
  void setBand(const QString& name, const std::vector<double>& low, const std::vector<double>& high);
  void removeSeries(const QString& name);
  void clearSeries();
  // How a series of that name is drawn (default Dense); kept across clearSeries(), so a caller
  // declares its evaluation series once.
  void setSeriesKind(const QString& name, SeriesKind kind);
  SeriesKind seriesKind(const QString& name) const;

  void setSmoothing(double weight);  // 0 .. 0.99
  double smoothing() const { return m_smoothing; }
  void setXAxis(CurveX x);
  CurveX xAxis() const { return m_x; }
  void setLogY(bool on);
  void setYLabel(const QString& label);
  QString yLabel() const;
  void setEmptyMessage(const QString& message);

  int seriesCount() const { return static_cast<int>(m_series.size()); }
  QStringList seriesNames() const { return m_order; }
  int pointCount(const QString& name) const;
  // What is drawn for a series after smoothing and thinning (for tests and export): the bold
  // line's values (raw for sparse series).
  std::vector<double> drawnSmoothed(const QString& name) const;
  // The band's drawn lower and upper edges (empty without a band).
  std::vector<double> drawnBandLow(const QString& name) const;
  std::vector<double> drawnBandHigh(const QString& name) const;
  // The number printed at a series' final point ("" when none).
  QString finalLabel(const QString& name) const;
  // Every point of every series, in the order they were added.
  std::vector<CurveData> data() const;
  bool writeCsv(const QString& path, QString* error = nullptr) const;

  // The hover readout at plot x coordinate `x` (in the current x unit): a header line with the
  // step, tokens and wall time of the nearest point, then one line per series under the cursor.
  QString readoutAt(double x) const;
  QString hoverText() const { return m_hoverText; }
  QString smoothingText() const;
  QCustomPlot* plot() const { return m_plot; }

  // Rebuilds the drawn graphs from the data and queues a replot (cheap to call often: the plot
  // redraws at most ~30 times a second, ReplotThrottle).
  void replotLater();

 private:
  struct Data {
    std::vector<double> step, tokens, wall, value;
    std::vector<double> smoothed;  // EMA over every point (dense series), refreshed by rebuild
    std::vector<double> low, high;  // the band (same length as value), or empty
    QColor color;
    SeriesKind kind = SeriesKind::Dense;
    QCPGraph* raw = nullptr;     // faint, behind (dense series with smoothing on)
    QCPGraph* smooth = nullptr;  // the bold line; the raw points of a sparse series
    QCPGraph* last = nullptr;    // the final point's dot
    QCPItemText* label = nullptr;  // the final value
    double endX = 0, endY = 0;     // where it belongs: the last finite point (plot coords)
    QCPGraph* bandLow = nullptr;   // no pen; bandHigh fills down to it
    QCPGraph* bandHigh = nullptr;
  };
  Data& ensure(const QString& name, QColor color);
  void styleSeries(Data& d);
  void rebuild(Data& d);
  void rebuildBand(Data& d, std::size_t maxPoints);
  void rescale();
  void placeLegend();
  void placeLabels();
  bool legendOutside() const;
  const std::vector<double>& xs(const Data& d) const;
  // Index of the point nearest to x in a series (-1 when empty).
  int nearestIndex(const Data& d, double x) const;
  void onMouseMove(QMouseEvent* event);
  void hideHover();
  bool eventFilter(QObject* watched, QEvent* event) override;

  QCustomPlot* m_plot = nullptr;
  ReplotThrottle* m_throttle = nullptr;
  QSlider* m_slider = nullptr;
  QLabel* m_sliderValue = nullptr;
  QComboBox* m_xCombo = nullptr;
  QCheckBox* m_logY = nullptr;
  QLabel* m_message = nullptr;
  QCPItemStraightLine* m_cursor = nullptr;
  QHash<QString, Data> m_series;
  QStringList m_order;  // series in the order they were added (readout, CSV)
  QHash<QString, SeriesKind> m_kinds;
  QString m_hoverText;
  double m_smoothing = 0.6;
  CurveX m_x = CurveX::Step;
  int m_colorIndex = 0;
};

// A qualitative colour per index (run or series), readable on light and dark backgrounds.
QColor seriesColor(int index);

}  // namespace pha::widgets
