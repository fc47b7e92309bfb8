// CompareWidget: the Compare dock's content. Given saved runs (store path + run id, from one
// or several project stores) it shows tabs: overlaid Curves, aligned Mixer heatmaps, a Metrics
// table (final / best), the Config diff (only what differs), Pareto (quality against cost)
// Length (metric against sequence length), Scaling (final loss against size, fitted) and
// Parallel (parallel coordinates: the settings that differ and a metric, brushable). Every plot has "Export…" (PNG/PDF/SVG/CSV).
// Reads happen on the GUI thread through its own store connections (quick, indexed reads).
#pragma once

#include <QList>
#include <QWidget>
#include <memory>

#include "gui/compare/compare_data.h"

class QLabel;
class QTabWidget;

namespace pha::gui {

class ConfigDiffView;
class CurvesTab;
class LengthTab;
class MetricsTab;
class MixerTab;
class ParallelCoordsTab;
class ParetoTab;
class ScalingTab;

class CompareWidget : public QWidget {
  Q_OBJECT
 public:
  explicit CompareWidget(QWidget* parent = nullptr);
  ~CompareWidget() override;

  // Replaces the compared runs (2..N; one run is shown too, the diff then asks for more).
  void setRuns(const QList<RunRef>& runs);
  // Reads the same runs again (e.g. after a run finished).
  void reload();
  // No runs, and every store connection closed (another project opened, a store recovered).
  void clear();
  QList<RunRef> runs() const { return m_refs; }

  const LoadedRuns& loadedRuns() const;
  ConfigDiffView* diffView() const { return m_diff; }
  CurvesTab* curvesTab() const { return m_curves; }
  MixerTab* mixerTab() const { return m_mixer; }
  MetricsTab* metricsTab() const { return m_metrics; }
  ParetoTab* paretoTab() const { return m_pareto; }
  LengthTab* lengthTab() const { return m_length; }
  ScalingTab* scalingTab() const { return m_scaling; }
  // Parallel coordinates; its runsBrushed(QList<RunRef>) says which runs the brushes keep.
  ParallelCoordsTab* parallelTab() const { return m_parallel; }
  QTabWidget* tabs() const { return m_tabs; }
  QString message() const;  // problems reading the runs, empty when all loaded

 signals:
  void runsLoaded(int count);

 private:
  StoreCache m_cache;
  QList<RunRef> m_refs;
  std::shared_ptr<const LoadedRuns> m_loaded;
  QLabel* m_message = nullptr;
  QTabWidget* m_tabs = nullptr;
  CurvesTab* m_curves = nullptr;
  MixerTab* m_mixer = nullptr;
  MetricsTab* m_metrics = nullptr;
  ConfigDiffView* m_diff = nullptr;
  ParetoTab* m_pareto = nullptr;
  LengthTab* m_length = nullptr;
  ScalingTab* m_scaling = nullptr;
  ParallelCoordsTab* m_parallel = nullptr;
};

}  // namespace pha::gui
