#include "gui/docks.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/curve_plot.h"
#include "widgets/efficiency_panel.h"
#include "gui/inference/inference_tab.h"
#include "widgets/mixer_panel.h"
#include "gui/runs/run_notes_panel.h"
#include "gui/compare/compare_widget.h"
#include "gui/config/config_editor.h"
#include "gui/generate/generate_panel.h"
#include "gui/lens/lens_view.h"
#include "gui/project/project_data_banner.h"
#include "gui/project/store_damage_banner.h"
#include "gui/report/report_view.h"
#include "gui/search/search_view.h"

namespace pha::gui {

namespace {

// A dock whose content scrolls once the dock is smaller than `minimum` (the size below which
// its plots, tables and labels would be squeezed flat): a small window gets scroll bars, never
// flattened plots or a button under the status bar, and no dock's content can push the window
// wider than the screen (Compare with nine runs, the Report).
QDockWidget* makeDock(const QString& title, const char* objectName, QWidget* content, QWidget* parent,
                      const QSize& minimum) {
  auto* dock = new QDockWidget(title, parent);
  dock->setObjectName(objectName);
  auto* scroll = new QScrollArea(dock);
  scroll->setObjectName(QString::fromLatin1(objectName) + ".scroll");
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  content->setMinimumSize(minimum);
  scroll->setWidget(content);
  dock->setWidget(scroll);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  return dock;
}

// A dock's content layout that does not pass height-for-width up to the dock's scroll area: with
// a word-wrapped label anywhere in it (Compare's notes, the Metrics tab's message) QScrollArea
// sizes the content by its *preferred* height, the tallest of the stacked tabs', and scrolled
// the Compare dock at 1280 x 720 although the tab in view fitted. The content now scrolls only
// below its minimum size; inside, the layout still gives wrapped labels their height.
class DockContentLayout : public QVBoxLayout {
 public:
  using QVBoxLayout::QVBoxLayout;
  bool hasHeightForWidth() const override { return false; }
};

QVBoxLayout* host(QWidget*& box, QWidget* parent) {
  box = new QWidget(parent);
  auto* layout = new DockContentLayout(box);
  layout->setContentsMargins(2, 2, 2, 2);
  return layout;
}

// Project and runs: the project line, the run filters, the run table and Compare selected.
void buildProjectDock(Docks& d, QWidget* parent) {
  QWidget* box = nullptr;
  auto* layout = host(box, parent);
  d.projectLabel = new QLabel(QObject::tr("No project open."), box);
  d.projectLabel->setObjectName("projectLabel");
  d.projectLabel->setWordWrap(true);
  layout->addWidget(d.projectLabel);
  d.runFilter = new QLineEdit(box);
  d.runFilter->setObjectName("runFilter");
  d.runFilter->setPlaceholderText(QObject::tr("Filter runs by name, variant, status, tag or notes"));
  d.runFilter->setClearButtonEnabled(true);
  d.runFilter->setToolTip(QObject::tr("Shows the runs whose name, variant, status, tags or notes contain the text, "
                                      "or whose id it is (12 or #12)"));
  d.runKindFilter = new QComboBox(box);
  d.runKindFilter->setObjectName("runKindFilter");
  d.runKindFilter->setToolTip(QObject::tr("Which kind of run the table lists: training runs (curves, mixer, "
                                          "evaluations) or profile runs (the efficiency profile's tokens/s and memory "
                                          "rows, and inference benchmarks: the Efficiency dock shows both)"));
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(d.runFilter, 1);
  filterRow->addWidget(d.runKindFilter);
  d.runTagFilter = new QComboBox(box);
  d.runTagFilter->setObjectName("runTagFilter");
  d.runTagFilter->setToolTip(QObject::tr("Only the runs with this tag (tag runs by right-click > Tags..., "
                                         "the Tags... button below the table, or pha runs tag)"));
  d.runTagFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  filterRow->addWidget(d.runTagFilter);
  layout->addLayout(filterRow);
  // Sorting, column choice and order are RunBrowser's (remembered in QSettings).
  d.runsTable = new QTableView(box);
  d.runsTable->setObjectName("runsTable");
  d.runsTable->setSelectionBehavior(QAbstractItemView::SelectRows);
  d.runsTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
  d.runsTable->setWordWrap(false);
  d.runsTable->setTextElideMode(Qt::ElideMiddle);
  d.runsTable->horizontalHeader()->setStretchLastSection(false);  // Name stretches (RunBrowser)
  d.runsTable->verticalHeader()->hide();
  d.runsTable->verticalHeader()->setDefaultSectionSize(d.runsTable->fontMetrics().height() + 6);
  d.runsTable->setAlternatingRowColors(true);
  layout->addWidget(d.runsTable, 1);
  d.compareButton = new QPushButton(QObject::tr("Compare selected"), box);
  d.compareButton->setObjectName("compareButton");
  d.compareButton->setToolTip(QObject::tr("Select two or more runs (Ctrl/Shift-click) to compare them"));
  layout->addWidget(d.compareButton);
  d.runNotes = new RunNotesPanel(box);
  layout->addWidget(d.runNotes);
  d.projectDock = makeDock(QObject::tr("Project and runs"), dock_names::kProject, box, parent, {330, 280});
}

// Live curves: loss and perplexity plots and the per-step readout.
void buildCurvesDock(Docks& d, QWidget* parent) {
  QWidget* box = nullptr;
  auto* layout = host(box, parent);
  auto* split = new QSplitter(Qt::Vertical, box);
  d.lossPlot = new widgets::CurvePlot(QObject::tr("loss (nats/token)"), split);
  d.lossPlot->setObjectName("lossPlot");
  d.lossPlot->setEmptyMessage(QObject::tr("Loss curves appear here while a run trains, or when you pick a run."));
  d.qualityPlot = new widgets::CurvePlot(QObject::tr("perplexity"), split);
  d.qualityPlot->setObjectName("qualityPlot");
  // Two readable plots or a scroll bar: never one of them squeezed flat (at 1000 x 700 the
  // perplexity plot was 50 px with its ticks run together).
  for (widgets::CurvePlot* p : {d.lossPlot, d.qualityPlot}) p->setMinimumHeight(150);
  split->setChildrenCollapsible(false);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
  d.liveReadout = new QLabel(box);
  d.liveReadout->setObjectName("liveReadout");
  d.liveReadout->setWordWrap(true);
  d.liveReadout->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // Two lines reserved: the per-step text changes length, and a re-wrap would resize (and
  // redraw) both plots.
  d.liveReadout->setMinimumHeight(2 * d.liveReadout->fontMetrics().lineSpacing() + 4);
  layout->addWidget(d.liveReadout);
  d.curvesDock = makeDock(QObject::tr("Live curves"), dock_names::kCurves, box, parent, {320, 360});
}

}  // namespace

Docks buildDocks(QWidget* parent) {
  Docks d;
  buildProjectDock(d, parent);
  {  // Configuration: the config editor is placed in configHost by MainWindow
    QWidget* box = nullptr;
    d.configHost = host(box, parent);
    d.configDock = makeDock(QObject::tr("Configuration"), dock_names::kConfig, box, parent, {330, 320});
  }
  buildCurvesDock(d, parent);
  {  // Mixer heatmap
    d.mixerPanel = new widgets::MixerPanel(parent);
    d.mixerPanel->setObjectName("mixerPanel");
    d.mixerPanel->clear(QObject::tr("Each layer's learned mixer weights (GSS / attention / FFN) appear here while "
                                    "a PHA run trains, or when you pick a run."));
    d.mixerDock = makeDock(QObject::tr("Mixer heatmap"), dock_names::kMixer, d.mixerPanel, parent, {270, 300});
  }
  {  // Efficiency: the training profile (tokens/s and memory against T) and Inference (prefill,
     // decode and decode memory against the prompt length L)
    d.efficiencyTabs = new QTabWidget(parent);
    d.efficiencyTabs->setObjectName("efficiencyTabs");
    d.efficiencyTabs->setDocumentMode(true);
    d.efficiencyPanel = new widgets::EfficiencyPanel(d.efficiencyTabs);
    d.efficiencyPanel->setObjectName("efficiencyPanel");
    d.efficiencyPanel->setMinimumHeight(300);
    d.inferenceTab = new InferenceTab(d.efficiencyTabs);
    d.inferenceTab->setObjectName("inferenceTab");
    d.efficiencyTabs->addTab(d.efficiencyPanel, QObject::tr("Training"));
    d.efficiencyTabs->setTabToolTip(0, QObject::tr("The efficiency profile: training tokens/s and peak memory against "
                                                   "the sequence length T"));
    d.efficiencyTabs->addTab(d.inferenceTab, QObject::tr("Inference"));
    d.efficiencyTabs->setTabToolTip(1, QObject::tr("pha bench inference: prefill, decode and decode memory against the "
                                                   "prompt length L"));
    d.efficiencyDock = makeDock(QObject::tr("Efficiency"), dock_names::kEfficiency, d.efficiencyTabs, parent, {460, 330});
  }
  {  // Compare, Generate, Report, Search and Lens: feature widgets placed by MainWindow
    QWidget* box = nullptr;
    d.compareHost = host(box, parent);
    d.compareDock = makeDock(QObject::tr("Compare"), dock_names::kCompare, box, parent, {560, 330});
    QWidget* gbox = nullptr;
    d.generateHost = host(gbox, parent);
    d.generateDock = makeDock(QObject::tr("Generate"), dock_names::kGenerate, gbox, parent, {330, 260});
    // The project's report: its own dock (it covers every run of the project, not the runs picked
    // for Compare; docs/gui-compare.md).
    QWidget* rbox = nullptr;
    d.reportHost = host(rbox, parent);
    d.reportDock = makeDock(QObject::tr("Report"), dock_names::kReport, rbox, parent, {460, 260});
    // The project's architecture search (its "search" section; docs/search.md).
    QWidget* sbox = nullptr;
    d.searchHost = host(sbox, parent);
    d.searchDock = makeDock(QObject::tr("Search"), dock_names::kSearch, sbox, parent, {560, 330});
    // The hybrid lens on the picked run (app/gui/lens/lens_view.h).
    QWidget* lbox = nullptr;
    d.lensHost = host(lbox, parent);
    d.lensDock = makeDock(QObject::tr("Lens"), dock_names::kLens, lbox, parent, {460, 330});
  }
  return d;
}

void setProjectLine(const Docks& docks, const QString& name, const QString& dir, const QStringList& names) {
  const QString some = names.size() <= 3 ? names.join(", ")
                                         : QObject::tr("%1 and %2 more").arg(names.mid(0, 2).join(", ")).arg(names.size() - 2);
  docks.projectLabel->setText(QObject::tr("<b>%1</b> &nbsp;%2<br>%3 run(s) planned: %4")
                                  .arg(name.toHtmlEscaped(), dir.toHtmlEscaped())
                                  .arg(names.size())
                                  .arg(some.toHtmlEscaped()));
  docks.projectLabel->setToolTip(
      QObject::tr("%1\nruns planned (project.json and the tune section's follow-ups):\n%2").arg(dir, names.join("\n")));
}

FeatureViews buildFeatureViews(QWidget* parent, const Docks& docks, ProjectSession* session, RunQueue* queue) {
  FeatureViews v;
  // The banners stand under the project's name in the Project dock.
  v.dataBanner = new ProjectDataBanner(session, parent);
  v.storeBanner = new StoreDamageBanner(session, parent);
  for (QWidget* banner : {static_cast<QWidget*>(v.dataBanner), static_cast<QWidget*>(v.storeBanner)})
    if (auto* layout = qobject_cast<QVBoxLayout*>(docks.projectLabel->parentWidget()->layout()))
      layout->insertWidget(layout->indexOf(docks.projectLabel) + 1, banner);

  v.config = new ConfigEditor(parent);
  v.config->setObjectName("configEditor");
  docks.configHost->addWidget(v.config, 1);
  auto* row = new QHBoxLayout;
  v.addVariant = new QPushButton(QObject::tr("Add to project as variant..."), parent);
  v.addVariant->setObjectName("addVariantButton");
  v.addVariant->setToolTip(QObject::tr("Write this model and training configuration into project.json as a new variant"));
  row->addStretch(1);
  row->addWidget(v.addVariant);
  docks.configHost->addLayout(row);

  v.compare = new CompareWidget(parent);
  v.compare->setObjectName("compareWidget");
  docks.compareHost->addWidget(v.compare, 1);
  v.generate = new GeneratePanel(parent);
  v.generate->setObjectName("generatePanel");
  docks.generateHost->addWidget(v.generate, 1);
  v.report = new ReportView(parent);
  docks.reportHost->addWidget(v.report, 1);
  v.search = new SearchView(session, queue, parent);
  docks.searchHost->addWidget(v.search, 1);
  v.lens = new LensView(parent);
  v.lens->setObjectName("lensView");
  docks.lensHost->addWidget(v.lens, 1);
  return v;
}

}  // namespace pha::gui
