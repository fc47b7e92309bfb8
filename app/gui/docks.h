// The workbench's docks: one factory per dock so MainWindow only wires them together.
#pragma once

#include <QDockWidget>
#include <QString>

namespace pha::gui {

class MixerHeatmap;
class PlotPanel;

// Object names (used by QSettings state and by tests).
namespace dock_names {
inline const char* const kProject = "dock.project";
inline const char* const kConfig = "dock.configuration";
inline const char* const kCurves = "dock.curves";
inline const char* const kMixer = "dock.mixer";
inline const char* const kEfficiency = "dock.efficiency";
inline const char* const kCompare = "dock.compare";
}  // namespace dock_names

QDockWidget* makeProjectDock(QWidget* parent);
QDockWidget* makeConfigDock(QWidget* parent);
QDockWidget* makeCurvesDock(QWidget* parent);
QDockWidget* makeMixerDock(QWidget* parent);
QDockWidget* makeEfficiencyDock(QWidget* parent);
QDockWidget* makeCompareDock(QWidget* parent);

}  // namespace pha::gui
