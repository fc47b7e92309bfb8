// MainWindow: the feature docks (configuration editor, compare view) and the export actions.
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "compare_widget.h"
#include "config_editor.h"
#include "curve_plot.h"
#include "export_menu.h"
#include "generate_panel.h"
#include "main_window.h"
#include "mixer_heatmap.h"
#include "mixer_panel.h"
#include "project_session.h"
#include "run_report.h"
#include "runs_model.h"
#include "store/store.h"

namespace pha::gui {

void MainWindow::buildFeatureDocks() {
  m_config = new ConfigEditor(this);
  m_config->setObjectName("configEditor");
  m_docks.configHost->addWidget(m_config, 1);
  auto* row = new QHBoxLayout;
  auto* addVariant = new QPushButton(tr("Add to project as variant..."), this);
  addVariant->setObjectName("addVariantButton");
  addVariant->setToolTip(tr("Write this model and training configuration into project.json as a new variant"));
  row->addStretch(1);
  row->addWidget(addVariant);
  m_docks.configHost->addLayout(row);
  connect(addVariant, &QPushButton::clicked, this, &MainWindow::addConfigAsVariant);

  m_compare = new CompareWidget(this);
  m_compare->setObjectName("compareWidget");
  m_docks.compareHost->addWidget(m_compare, 1);
  connect(this, &MainWindow::compareRequested, this, [this](const QString& store, const QList<qint64>& ids) {
    QList<RunRef> refs;
    for (qint64 id : ids) refs.push_back(RunRef{store, id});
    m_compare->setRuns(refs);
  });

  m_generate = new GeneratePanel(this);
  m_generate->setObjectName("generatePanel");
  m_docks.generateHost->addWidget(m_generate, 1);

  installExportMenu(m_docks.lossPlot->plot(), "loss");
  installExportMenu(m_docks.qualityPlot->plot(), "quality");
  installExportMenu(m_docks.mixerPanel->heatmap()->plot(), "mixer");

  auto* edit = new QMenu(tr("&Edit"), this);
  menuBar()->insertMenu(menuBar()->actions().at(1), edit);
  edit->addAction(m_config->undoAction());
  edit->addAction(m_config->redoAction());

  auto* file = menuBar()->actions().at(0)->menu();
  auto* report = new QAction(tr("Export run &report..."), this);
  connect(report, &QAction::triggered, this, &MainWindow::exportSelectedReport);
  file->insertAction(file->actions().at(3), report);
}

void MainWindow::showConfigOf(const QString& storePath, qint64 runId) {
  try {
    auto s = store::Store::open(storePath.toStdString());
    auto run = s.get_run(runId);
    if (!run) return;
    const nlohmann::json cfg = nlohmann::json::parse(run->config_json, nullptr, false);
    if (cfg.is_discarded() || !cfg.is_object()) return;
    if (cfg.contains("model")) m_config->setConfigJson(cfg["model"]);
    if (cfg.contains("training") && m_config->hasTrainingSection()) m_config->setTrainingJson(cfg["training"]);
  } catch (const std::exception& e) {
    showError(QString::fromUtf8(e.what()));
  }
}

void MainWindow::addConfigAsVariant() {
  if (!m_session->isOpen()) {
    showError(tr("Open a project first."));
    return;
  }
  if (!m_config->isValid()) {
    showError(tr("The configuration is not valid: %1").arg(m_config->errorText()));
    return;
  }
  // The engine validates the project with the new variant and writes project.json atomically
  // (runtime::add_variant); here only the name is asked, proposed free.
  const nlohmann::json model = m_config->configJson();
  const QString proposed = m_session->suggestVariantName(QString::fromStdString(model.value("name", std::string("custom"))));
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Add variant"), tr("Name of the new variant in project.json:"),
                                             QLineEdit::Normal, proposed, &ok);
  if (!ok) return;
  const nlohmann::json training = m_config->hasTrainingSection() && m_config->isTrainingValid() ? m_config->trainingJson()
                                                                                                : nlohmann::json();
  if (!m_session->addVariant(name.trimmed(), model, training)) {
    showError(tr("Cannot add the variant: %1").arg(m_session->errorText()));
    return;
  }
  openProject(m_session->dir());
  statusBar()->showMessage(tr("Added variant %1 to %2").arg(name.trimmed(), m_session->dir() + "/project.json"), 8000);
}

void MainWindow::exportSelectedReport() {
  const QModelIndexList rows = m_docks.runsTable->selectionModel()->selectedRows();
  if (rows.size() != 1) {
    showError(tr("Select one run to export its report."));
    return;
  }
  const qint64 id = rows.first().data(RunsModel::RunIdRole).toLongLong();
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Report folder"), QDir::homePath());
  if (dir.isEmpty()) return;
  QString error;
  const QString out = dir + QString("/run-%1-report").arg(id);
  if (!writeRunReport(m_runs->storePath(), id, out, &error))
    showError(error);
  else
    statusBar()->showMessage(tr("Report written to %1/index.html").arg(out), 8000);
}

}  // namespace pha::gui
