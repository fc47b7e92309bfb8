// Compare dock, Mixer tab: one MixerHeatmap per run that recorded mixer weights, on the same
// fixed 0..1 scale, all at one training step chosen with a shared slider (each run shows its
// latest snapshot at or before that step; the slider starts at the last step). The heatmaps
// fill a grid as wide as the dock allows (at least kPanelWidth each), in a scroll area when
// they do not fit; runs without a mixer (attention-only, sequential, GSS-only models) are
// listed once in a line under the grid, not drawn as empty panels. A raw / effective toggle shows
// each run's stored effective shares (the Lens dock's Weights > Record) instead, when it has them.
#pragma once

#include <QList>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>

#include "widgets/mixer_panel.h"

#include "gui/compare/compare_data.h"

class QComboBox;
class QGridLayout;
class QScrollArea;
class QLabel;
class QSlider;

namespace pha::widgets {
class MixerHeatmap;
}  // namespace pha::widgets

namespace pha::gui {

class MixerTab : public QWidget {
  Q_OBJECT
 public:
  explicit MixerTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setStep(qint64 step);  // picks the nearest slider position at or below step

  qint64 step() const;
  // Heatmaps: one per run with mixer snapshots, in the order of the compared runs.
  int heatmapCount() const { return m_heatmaps.size(); }
  widgets::MixerHeatmap* heatmap(int index) const { return m_heatmaps.value(index); }
  qint64 shownStep(int index) const;  // snapshot step shown by heatmap index, -1 when none
  int gridColumns() const { return m_gridColumns; }
  QString heatmapTitle(int index) const;
  QString message() const;
  static constexpr int kPanelWidth = 260;
  // The raw / effective toggle (effective: store kind "effective_share", read once per run).
  void setShowEffective(bool effective);
  bool showsEffective() const { return m_showEffective; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void showStep();
  void layoutGrid();

  std::shared_ptr<const LoadedRuns> m_runs;
  std::vector<qint64> m_steps;  // union of all runs' snapshot steps, ascending
  QSlider* m_slider = nullptr;
  QLabel* m_stepLabel = nullptr;
  QLabel* m_message = nullptr;
  QGridLayout* m_grid = nullptr;
  QScrollArea* m_scroll = nullptr;
  int m_gridColumns = 0;
  QList<int> m_runOf;  // heatmap index -> run index
  QList<QWidget*> m_columns;
  QList<widgets::MixerHeatmap*> m_heatmaps;
  QList<QLabel*> m_titles;
  QList<qint64> m_shown;
  QComboBox* m_kind = nullptr;
  bool m_showEffective = false;
  std::map<int, std::optional<widgets::MixerFrame>> m_effective;  // run index -> stored shares
};

}  // namespace pha::gui
