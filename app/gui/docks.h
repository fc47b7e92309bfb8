// The workbench's docks, built in one place; MainWindow wires them to the session, the queue
// and the store. Each dock has an objectName (QSettings state, tests).
#pragma once

#include <QDockWidget>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QVBoxLayout;
class QPushButton;
class QTabWidget;

namespace pha::widgets {
class CurvePlot;
class MixerPanel;
class EfficiencyPanel;
}  // namespace pha::widgets

namespace pha::gui {

class InferenceTab;
class RunNotesPanel;

namespace dock_names {
inline const char* const kProject = "dock.project";
inline const char* const kConfig = "dock.configuration";
inline const char* const kCurves = "dock.curves";
inline const char* const kMixer = "dock.mixer";
inline const char* const kEfficiency = "dock.efficiency";
inline const char* const kCompare = "dock.compare";
inline const char* const kGenerate = "dock.generate";
inline const char* const kReport = "dock.report";
inline const char* const kSearch = "dock.search";
inline const char* const kLens = "dock.lens";
}  // namespace dock_names

struct Docks {
  QDockWidget* projectDock = nullptr;
  QDockWidget* configDock = nullptr;
  QDockWidget* curvesDock = nullptr;
  QDockWidget* mixerDock = nullptr;
  QDockWidget* efficiencyDock = nullptr;
  QDockWidget* compareDock = nullptr;
  QDockWidget* generateDock = nullptr;
  QDockWidget* reportDock = nullptr;
  QDockWidget* searchDock = nullptr;
  QDockWidget* lensDock = nullptr;

  // Project and runs
  QLabel* projectLabel = nullptr;
  QLineEdit* runFilter = nullptr;
  QComboBox* runKindFilter = nullptr;  // training / profile / all kinds (RunBrowser fills it)
  QComboBox* runTagFilter = nullptr;   // all tags / one tag (RunBrowser fills it)
  QTableView* runsTable = nullptr;
  QPushButton* compareButton = nullptr;
  RunNotesPanel* runNotes = nullptr;   // the picked run's tags and notes
  // Live curves
  widgets::CurvePlot* lossPlot = nullptr;
  widgets::CurvePlot* qualityPlot = nullptr;
  QLabel* liveReadout = nullptr;
  // Mixer, efficiency (tabs: the training profile, Inference)
  widgets::MixerPanel* mixerPanel = nullptr;
  QTabWidget* efficiencyTabs = nullptr;
  widgets::EfficiencyPanel* efficiencyPanel = nullptr;
  InferenceTab* inferenceTab = nullptr;
  // Hosts for feature widgets (config editor, compare view, generate panel, report view, search view,
  // lens view)
  QVBoxLayout* configHost = nullptr;
  QVBoxLayout* compareHost = nullptr;
  QVBoxLayout* generateHost = nullptr;
  QVBoxLayout* reportHost = nullptr;
  QVBoxLayout* searchHost = nullptr;
  QVBoxLayout* lensHost = nullptr;
};

Docks buildDocks(QWidget* parent);

}  // namespace pha::gui
