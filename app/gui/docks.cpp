#include "docks.h"

#include <QHeaderView>
#include <QLabel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "mixer_heatmap.h"
#include "plot_panel.h"

namespace pha::gui {

namespace {

QDockWidget* makeDock(const QString& title, const char* objectName, QWidget* content, QWidget* parent) {
  auto* dock = new QDockWidget(title, parent);
  dock->setObjectName(objectName);
  dock->setWidget(content);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  return dock;
}

QLabel* note(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setWordWrap(true);
  label->setAlignment(Qt::AlignCenter);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

}  // namespace

QDockWidget* makeProjectDock(QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  auto* table = new QTableView(box);
  table->setObjectName("runsTable");
  auto* model = new QStandardItemModel(0, 6, table);
  model->setHorizontalHeaderLabels({"Status", "Run", "Variant", "Parameters", "Best metric", "Duration"});
  table->setModel(model);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setSortingEnabled(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  layout->addWidget(table, 1);
  layout->addWidget(note(QObject::tr("No run store is open. Runs are stored once training exists "
                                     "(roadmap step 4)."), box));
  return makeDock(QObject::tr("Project and runs"), dock_names::kProject, box, parent);
}

QDockWidget* makeConfigDock(QWidget* parent) {
  return makeDock(QObject::tr("Configuration"), dock_names::kConfig,
                  note(QObject::tr("The model and training form arrives with the engine's configuration "
                                   "(roadmap steps 2 and 5)."), parent),
                  parent);
}

QDockWidget* makeCurvesDock(QWidget* parent) {
  auto* panel = new PlotPanel(QObject::tr("step"), QObject::tr("loss"), parent);
  panel->setObjectName("curvesPlot");
  panel->setEmptyMessage(QObject::tr("Loss and perplexity curves appear here while a run trains."));
  return makeDock(QObject::tr("Live curves"), dock_names::kCurves, panel, parent);
}

QDockWidget* makeMixerDock(QWidget* parent) {
  auto* heatmap = new MixerHeatmap(parent);
  heatmap->setObjectName("mixerHeatmap");
  heatmap->clear(QObject::tr("Each layer's learned mixer weights (GSS / attention / FFN) appear here "
                             "while a PHA run trains."));
  return makeDock(QObject::tr("Mixer heatmap"), dock_names::kMixer, heatmap, parent);
}

QDockWidget* makeEfficiencyDock(QWidget* parent) {
  auto* panel = new PlotPanel(QObject::tr("sequence length"), QObject::tr("tokens / s"), parent);
  panel->setObjectName("efficiencyPlot");
  panel->setLogX(true);
  panel->setLogY(true);
  panel->plot()->xAxis->setRange(256, 16384);
  panel->plot()->yAxis->setRange(10, 1e5);
  panel->setEmptyMessage(QObject::tr("Throughput and peak memory against sequence length appear here "
                                     "after a profiler run."));
  return makeDock(QObject::tr("Efficiency"), dock_names::kEfficiency, panel, parent);
}

QDockWidget* makeCompareDock(QWidget* parent) {
  return makeDock(QObject::tr("Compare"), dock_names::kCompare,
                  note(QObject::tr("Select two or more saved runs to compare them side by side."), parent),
                  parent);
}

}  // namespace pha::gui
