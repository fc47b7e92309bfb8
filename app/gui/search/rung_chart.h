// RungChart: the search's rung chart. The first objective (its mean over the seeds) against the
// budget (each rung's resource, log scale, a tick at every rung), one line per trial through
// its rungs: stopped trials faded, with a cross at the rung where they stopped; promoted ones
// bold, finished ones bold with a disc and their name at the end; running and pending ones
// plain. Selected trials (the leaderboard's selection) are drawn on top, thicker and named.
// One colour per trial (per base variant when more than one is searched). Hovering shows the
// nearest point's trial, settings, rung and value. Redrawn when a rung is decided.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "gui/search/rung_series.h"
#include "search_runner/search_job.h"

class QCustomPlot;
class QMouseEvent;

namespace pha::widgets {
class PlotPanel;
}

namespace pha::gui {

class RungChart : public QWidget {
  Q_OBJECT
 public:
  explicit RungChart(QWidget* parent = nullptr);

  void setSummary(const search_runner::SearchSummary& summary);
  void setHighlighted(const QStringList& trialIds);  // searchTrialId of each
  void clear(const QString& message);

  QCustomPlot* plot() const;
  int lineCount() const { return static_cast<int>(m_lines.size()); }  // trials with a measured rung
  int stoppedMarkers() const { return m_stoppedMarkers; }
  QString emptyMessage() const;
  // The trial of line i (searchTrialId), its points and whether it is drawn bold.
  QString lineTrial(int i) const { return QString::fromStdString(m_lines.at(static_cast<std::size_t>(i)).trial); }
  int linePoints(int i) const { return static_cast<int>(m_lines.at(static_cast<std::size_t>(i)).x.size()); }
  bool lineBold(int i) const { return m_lines.at(static_cast<std::size_t>(i)).bold; }

 private:
  void redraw();
  void hover(QMouseEvent* event);

  search_runner::SearchSummary m_summary;
  QStringList m_highlighted;
  std::vector<RungLine> m_lines;  // rungSeries's lines, as drawn
  int m_stoppedMarkers = 0;
  widgets::PlotPanel* m_panel = nullptr;
};

}  // namespace pha::gui
