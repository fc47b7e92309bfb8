// MixerPanel: the mixer heatmap with a step scrubber that replays how the weights moved, and
// the sandwich readout (where GSS and attention dominate by depth, beyond kDominanceMargin,
// sandwich.h). Live snapshots append; the view follows the newest one unless the user scrubbed
// back. Its CSV holds every snapshot it has, one row per layer x branch x step.
#pragma once

#include <QWidget>
#include <cstdint>
#include <optional>
#include <vector>

class QComboBox;
class QSlider;
class QLabel;

namespace pha::widgets {

class MixerHeatmap;

struct MixerFrame {
  std::int64_t step = 0;
  int layers = 0;
  int branches = 0;
  std::vector<float> weights;  // layer-major
};

class MixerPanel : public QWidget {
  Q_OBJECT
 public:
  explicit MixerPanel(QWidget* parent = nullptr);

  void setFrames(std::vector<MixerFrame> frames);  // replaces; shows the last
  void appendFrame(MixerFrame frame);              // live
  void clear(const QString& message);
  void showFrame(int index);

  int frameCount() const { return static_cast<int>(m_frames.size()); }
  int currentFrame() const { return m_current; }
  // The step of the shown snapshot (-1: none).
  qint64 currentStep() const;
  QString readout() const;
  QString readoutToolTip() const;
  // layer,branch,step,weight for every snapshot held (the scrubber's history), by step.
  bool writeCsv(const QString& path, QString* error = nullptr) const;
  MixerHeatmap* heatmap() const { return m_heatmap; }
  QSize sizeHint() const override { return {420, 560}; }

  // The raw / effective toggle: the run's stored effective shares (the Lens dock's Weights >
  // Record, store kind "effective_share"; nullopt: not measured) shown instead of the raw mixer
  // weights while "effective share" is chosen. clear() forgets them (another run).
  void setEffectiveShares(std::optional<MixerFrame> shares);
  void setShowEffective(bool effective);
  bool showsEffective() const { return m_showEffective; }
  QComboBox* weightKindBox() const { return m_kind; }

 signals:
  void frameShown(qint64 step);

 private:
  MixerHeatmap* m_heatmap = nullptr;
  QSlider* m_slider = nullptr;
  QLabel* m_stepLabel = nullptr;
  QLabel* m_readout = nullptr;
  QComboBox* m_kind = nullptr;
  std::vector<MixerFrame> m_frames;
  std::optional<MixerFrame> m_effective;
  bool m_showEffective = false;
  int m_current = -1;

  void showEffective();
};

}  // namespace pha::widgets
