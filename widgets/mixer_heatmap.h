// MixerHeatmap: the layers x branches matrix of a model's mixer weights (the paper's
// "sandwich"), drawn on a fixed 0..1 colour scale with a colour bar. Rows without a mixer
// (sequential / single-branch layers) arrive as NaN and are drawn grey.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;

namespace pha::gui {

class MixerHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit MixerHeatmap(QWidget* parent = nullptr);

  // weights: layer-major, layers x branches; NaN where a layer has no such mix.
  void setMatrix(int layers, int branches, const std::vector<float>& weights,
                 const QStringList& branchNames = {"GSS", "Attention", "FFN"});
  void clear(const QString& message);

  int layers() const { return m_layers; }
  int branches() const { return m_branches; }
  // The value drawn at (layer, branch), as held by the colour map (NaN when none).
  double cellValue(int layer, int branch) const;
  QString message() const;
  QCustomPlot* plot() const { return m_plot; }

 private:
  QCustomPlot* m_plot = nullptr;
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QLabel* m_message = nullptr;
  int m_layers = 0;
  int m_branches = 0;
};

}  // namespace pha::gui
