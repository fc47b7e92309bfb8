// The workbench's docks, built in one place; MainWindow wires them to the session, the queue
// and the store. Each dock has an objectName (QSettings state, tests).
#pragma once

#include <QString>
#include <QStringList>

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
class ProjectDataBanner;
class StoreDamageBanner;
class ConfigEditor;
class CompareWidget;
class GeneratePanel;
class ReportView;
class SearchView;
class LensView;
class ProjectSession;
class RunQueue;

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

// The Project dock's project line: two lines whatever the project (a 9-run grid listed every name
// on four lines and pushed Compare selected and the notes field out of the dock at 1280 x 720);
// the tooltip lists every run.
void setProjectLine(const Docks& docks, const QString& name, const QString& dir, const QStringList& runs);

// The feature views in their docks (Configuration with its "Add to project as variant..." button,
// Compare, Generate, Report, Search, Lens) and the Project dock's two banners under the project
// line; MainWindow wires them.
struct FeatureViews {
  ProjectDataBanner* dataBanner = nullptr;
  StoreDamageBanner* storeBanner = nullptr;
  ConfigEditor* config = nullptr;
  QPushButton* addVariant = nullptr;
  CompareWidget* compare = nullptr;
  GeneratePanel* generate = nullptr;
  ReportView* report = nullptr;
  SearchView* search = nullptr;
  LensView* lens = nullptr;
};
FeatureViews buildFeatureViews(QWidget* parent, const Docks& docks, ProjectSession* session, RunQueue* queue);

}  // namespace pha::gui
