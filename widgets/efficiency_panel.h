// EfficiencyPanel: throughput (tokens/s) and peak memory against sequence length, one curve
// per variant and phase, on log axes, with the measured rows in a table beneath. Input is the
// run store's perf rows (what the profiler measured), never estimates. Each series keeps its
// colour by name (StableColors) whatever order the live and the stored views list them in, and
// the legends stand under the plots, never over a curve.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "widgets/series_colors.h"
#include "store/types.h"

class QTableWidget;
class QComboBox;
class QLabel;

namespace pha::widgets {

class PlotPanel;

struct EfficiencySeries {
  QString label;                          // run name ("profile: pha-tiny"; shown without "profile: ")
  std::vector<pha::store::PerfRow> rows;  // any phases, any order
};

class EfficiencyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit EfficiencyPanel(QWidget* parent = nullptr);

  void setSeries(std::vector<EfficiencySeries> series);
  int curveCount() const;        // curves drawn on the current plot
  int tableRows() const;
  PlotPanel* throughputPlot() const { return m_tps; }
  PlotPanel* memoryPlot() const { return m_mem; }
  // The colour the series `label` (as given to setSeries) is drawn in; invalid when not drawn.
  QColor colorOf(const QString& label) const;

 private:
  void redraw();

  PlotPanel* m_tps = nullptr;
  PlotPanel* m_mem = nullptr;
  QComboBox* m_phase = nullptr;
  QTableWidget* m_table = nullptr;
  QLabel* m_method = nullptr;
  std::vector<EfficiencySeries> m_series;
};

}  // namespace pha::widgets
