// MixerHeatmap: the layers x branches matrix of a model's mixer weights (the paper's
// "sandwich"), drawn on a fixed 0..1 colour scale with a colour bar. Rows without a mixer
// (sequential / single-branch layers) arrive as NaN and are drawn grey. Each cell also prints
// its weight (two decimals), so that movements of a few hundredths, faint on the fixed scale,
// can be read; the numbers are left out when the cells are too many to hold them. Its data
// exports as CSV, one row per cell (layer, branch, step, weight).
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemText;
class QLabel;

namespace pha::widgets {

class ReplotThrottle;

class MixerHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit MixerHeatmap(QWidget* parent = nullptr);

  // The branch order of the engine's mixer (model::ModelIntrospection): GSS, attention, FFN.
  static QStringList defaultBranchNames() { return {"GSS", "Attention", "FFN"}; }
  // weights: layer-major, layers x branches; NaN where a layer has no such mix.
  void setMatrix(int layers, int branches, const std::vector<float>& weights,
                 const QStringList& branchNames = defaultBranchNames());
  // The training step the matrix was taken at (CSV and export titles); -1: unknown.
  void setStep(qint64 step) { m_step = step; }
  qint64 step() const { return m_step; }
  void clear(const QString& message);
  // layer,branch,step,weight: one row per cell of the shown matrix (weight "nan" where a layer
  // has no mixer). False with *error when there is no matrix or the file cannot be written.
  bool writeCsv(const QString& path, QString* error = nullptr) const;

  int layers() const { return m_layers; }
  int branches() const { return m_branches; }
  // The value drawn at (layer, branch), as held by the colour map (NaN when none).
  double cellValue(int layer, int branch) const;
  // The number printed in that cell ("0.41", "-" for no mixer), empty when none is printed.
  QString cellText(int layer, int branch) const;
  // Matrices with more cells than this print no numbers (they would not fit).
  static constexpr int kMaxLabelledCells = 96;
  QString message() const;
  QCustomPlot* plot() const { return m_plot; }

 private:
  void setLabels(const std::vector<float>& weights);
  void clearLabels();

  QCustomPlot* m_plot = nullptr;
  ReplotThrottle* m_throttle = nullptr;  // live frames redraw at most ~30 times a second
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QLabel* m_message = nullptr;
  std::vector<QCPItemText*> m_labels;  // layer-major, one per cell when printed
  std::vector<float> m_weights;        // the shown matrix, layer-major
  QStringList m_branchNames;
  qint64 m_step = -1;
  int m_layers = 0;
  int m_branches = 0;
};

}  // namespace pha::widgets
