// Compare dock, Parallel tab: a parallel-coordinates view of the compared runs. One axis per
// setting that differs among them (the Config diff tab's rows) and one for the chosen metric's
// final value; one line per run coloured by that metric (the better end bright, per the
// engine's metric table). Brushing axes selects runs: runsBrushed carries them, for whoever
// selects them elsewhere. Move left / right (or a drag of an axis title) reorders the axes.
#pragma once

#include <QList>
#include <QWidget>
#include <memory>

#include "gui/compare/compare_data.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;

namespace pha::widgets {
class ParallelCoordsView;  // widgets/parallel_coords_view.h
}

namespace pha::gui {

class ParallelCoordsTab : public QWidget {
  Q_OBJECT
 public:
  explicit ParallelCoordsTab(QWidget* parent = nullptr);

  void setRuns(std::shared_ptr<const LoadedRuns> runs);
  void setMetric(const QString& key);
  QString metric() const;
  QStringList metricChoices() const;
  // Settings that split the runs alike share one axis (on by default: two model families differ
  // in a dozen settings at once); off: one axis per differing key.
  void setMergeTogether(bool merge);
  bool mergeTogether() const;

  widgets::ParallelCoordsView* view() const { return m_view; }
  QString emptyMessage() const;
  QString status() const;  // the line under the view
  // The runs every brush keeps (empty while no axis is brushed, and when the brushes keep none:
  // brushCount() tells the two apart).
  QList<RunRef> brushedRuns() const;
  QList<qint64> brushedRunIds() const;
  int brushCount() const;  // axes with a brush
  // PNG or SVG of the view, CSV of the axes' values per run, by extension.
  bool exportTo(const QString& path, QString* error = nullptr) const;

 signals:
  // The brushes changed (a brush drawn, i.e. on the mouse's release, moved by setBrush*, cleared,
  // or dropped because new runs or another metric rebuilt the axes): `runs` are the runs every
  // brush keeps, in the order compared. The main window connects it to select those runs in the
  // run table. Empty when no axis is brushed (every run drawn: leave the table's selection
  // alone) or when the brushes keep no run (select none); brushCount() tells the two apart.
  void runsBrushed(const QList<pha::gui::RunRef>& runs);

 private:
  void rebuild();
  void updateStatus();
  void updateButtons();
  bool writeCsv(const QString& path, QString* error) const;

  std::shared_ptr<const LoadedRuns> m_runs;
  QComboBox* m_metric = nullptr;
  QCheckBox* m_merge = nullptr;
  QPushButton* m_left = nullptr;
  QPushButton* m_right = nullptr;
  QPushButton* m_clear = nullptr;
  QScrollArea* m_scroll = nullptr;
  widgets::ParallelCoordsView* m_view = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace pha::gui
