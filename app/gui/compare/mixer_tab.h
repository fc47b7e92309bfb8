// Compare dock, Mixer tab: one MixerHeatmap per run side by side on the same fixed 0..1
// scale, all at one training step chosen with a shared slider (each run shows its latest
// snapshot at or before that step; the slider starts at the last step).
#pragma once

#include <QList>
#include <QWidget>
#include <memory>

#include "compare_data.h"

class QHBoxLayout;
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
  int heatmapCount() const { return m_heatmaps.size(); }
  widgets::MixerHeatmap* heatmap(int index) const { return m_heatmaps.value(index); }
  qint64 shownStep(int index) const;  // snapshot step shown by heatmap index, -1 when none
  QString message() const;

 private:
  void showStep();

  std::shared_ptr<const LoadedRuns> m_runs;
  std::vector<qint64> m_steps;  // union of all runs' snapshot steps, ascending
  QSlider* m_slider = nullptr;
  QLabel* m_stepLabel = nullptr;
  QLabel* m_message = nullptr;
  QHBoxLayout* m_row = nullptr;
  QList<QWidget*> m_columns;
  QList<widgets::MixerHeatmap*> m_heatmaps;
  QList<QLabel*> m_titles;
  QList<qint64> m_shown;
};

}  // namespace pha::gui
