// Lens dock, Weights tab: the layers x branches heatmap of the mixer weights, raw (w_b) or each
// branch's effective share (w_b x gain RMS over the layer's sum), and the table of every number
// (layer, branch, raw w, gain RMS, effective, share). Export: the plot, and the table as CSV.
#pragma once

#include <QWidget>
#include <optional>

#include "runtime/lens.h"

class QComboBox;
class QLabel;
class QTableWidget;

namespace pha::widgets {
class MixerHeatmap;
}

namespace pha::gui {

class LensWeightsTab : public QWidget {
  Q_OBJECT
 public:
  explicit LensWeightsTab(QWidget* parent = nullptr);
  void setWeights(const runtime::EffectiveWeights& w);
  void clear(const QString& message);
  void setShowEffective(bool effective);
  bool showsEffective() const;
  widgets::MixerHeatmap* heatmap() const { return m_heatmap; }
  QTableWidget* table() const { return m_table; }
  QString summary() const;
  bool writeCsv(const QString& path, QString* error) const;

 private:
  void refresh();
  QComboBox* m_kind = nullptr;
  QLabel* m_summary = nullptr;
  widgets::MixerHeatmap* m_heatmap = nullptr;
  QTableWidget* m_table = nullptr;
  std::optional<runtime::EffectiveWeights> m_weights;
};

}  // namespace pha::gui
