// Compare dock, Scaling tab: final loss against size for the compared runs, one series per
// model variant (pha, transformerpp, gss-only, ...), on log-log axes: each size's mean over its
// runs (seeds) with ± 1 std bars, the saturating power law L = E + A x^-alpha fitted to every
// run's point with its 95% bootstrap band (the engine's fit_power_law, analysis/scaling_fit.h:
// the same routine `pha report` uses), x = parameters or training FLOPs, and below the plot each
// fit's parameters with intervals and where two series' fitted curves cross (extrapolated to
// 100x the largest size, with its interval, or "no crossover in range").
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "gui/compare/compare_data.h"

class QComboBox;
class QCustomPlot;
class QLabel;

namespace pha::widgets {
class PlotPanel;
}  // namespace pha::widgets

namespace pha::gui {

class ScalingTab : public QWidget {
  Q_OBJECT
 public:
  explicit ScalingTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setAxes(const QString& metric, bool flops);

  int seriesCount() const { return m_series; }       // variants drawn
  int fittedCount() const { return m_fitted; }       // of them, with a fit (3 or more sizes)
  QString summary() const;                           // the fit and crossover lines
  QString emptyMessage() const;
  QCustomPlot* plot() const;

 private:
  void redraw();

  std::shared_ptr<const LoadedRuns> m_runs;
  QComboBox* m_metric = nullptr;
  QComboBox* m_x = nullptr;
  widgets::PlotPanel* m_panel = nullptr;
  QLabel* m_summary = nullptr;
  int m_series = 0;
  int m_fitted = 0;
};

// Training FLOPs of a run: the steps it recorded (train/loss's last step) x the tokens of a step
// (batch x T x grad_accum x processes) x the engine's training FLOPs per token at its T and batch
// (model/flops.h); nullopt when its config or curve is missing.
std::optional<double> trainingFlops(const LoadedRun& run);

}  // namespace pha::gui
