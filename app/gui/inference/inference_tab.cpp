#include "gui/inference/inference_tab.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSizePolicy>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "gui/inference/inference_job.h"
#include "gui/inference/inference_measure_dialog.h"
#include "widgets/inference_panel.h"
#include "widgets/inference_rows.h"
#include "runtime/profiler.h"
#include "store/store.h"
#include "widgets/window_store.h"

namespace pha::gui {

InferenceTab::InferenceTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  m_panel = new widgets::InferencePanel(this);
  m_panel->setObjectName("inferencePanel");
  m_measure = new QPushButton(tr("Measure..."), this);
  m_measure->setObjectName("inferenceMeasure");
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName("inferenceCancel");
  m_cancel->setToolTip(tr("Stop after dropping the point being measured; the points measured so far are recorded"));
  m_progress = new QProgressBar(this);
  m_progress->setObjectName("inferenceProgress");
  m_progress->setFormat(tr("point %v of %m"));
  m_progress->setMaximumWidth(160);
  m_status = new QLabel(this);
  m_status->setObjectName("inferenceStatus");
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Its own line under the buttons, wrapped: in the buttons' row it was cut by the Prefill box
  // ("4 rur") at 1280 x 720.
  m_status->setWordWrap(true);
  m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  // The buttons and the progress go first in the panel's row, its choices stay on the right.
  QHBoxLayout* row = m_panel->toolRow();
  row->insertWidget(0, m_measure);
  row->insertWidget(1, m_cancel);
  row->insertWidget(2, m_progress);
  row->insertStretch(3, 1);
  layout->addWidget(m_status);
  layout->addWidget(m_panel, 1);
  m_job = new InferenceJob(this);
  connect(m_measure, &QPushButton::clicked, this, &InferenceTab::measureWithDialog);
  connect(m_cancel, &QPushButton::clicked, this, &InferenceTab::cancel);
  connect(m_job, &InferenceJob::progressed, this, &InferenceTab::onProgress);
  connect(m_job, &InferenceJob::finished, this, &InferenceTab::onFinished);
  setProject({}, {}, {});
}

InferenceTab::~InferenceTab() = default;

bool InferenceTab::isBusy() const { return m_job->isRunning(); }

QString InferenceTab::statusText() const { return m_status->text(); }

void InferenceTab::setProject(const QString& dir, const QString& name, const QString& storePath) {
  m_dir = dir;
  m_name = name;
  m_storePath = storePath;
  setStatus({});
  reload();
}

void InferenceTab::setHiddenRuns(const QSet<qint64>& ids) {
  m_hidden = ids;
  refreshView();
}

void InferenceTab::setBlockedReason(const QString& reason) {
  m_blocked = reason;
  updateButtons();
}

void InferenceTab::reload() {
  m_stored.clear();
  if (!m_storePath.isEmpty()) {
    try {
      auto s = store::Store::open(m_storePath.toStdString(), widgets::windowReadOptions());
      m_stored = store::inference_runs(s, m_name.toStdString());
    } catch (const std::exception& e) {
      // A store not created yet holds no measurement; anything else is said.
      setStatus(tr("Cannot read the inference runs: %1").arg(QString::fromUtf8(e.what())));
    }
  }
  refreshView();
}

void InferenceTab::refreshView() {
  std::vector<store::ModelInference> runs;
  for (const auto& r : m_stored)
    if (!m_hidden.contains(r.run_id)) runs.push_back(r);
  std::vector<store::ModelInference> shown = widgets::newestPerModel(runs);
  // While measuring, a model's points so far stand in for its stored run.
  if (m_job->isRunning() && !m_job->points().empty()) {
    std::map<std::string, std::vector<store::InferencePointResult>> live;
    for (const auto& p : m_job->points()) live[p.spec.model].push_back(p);
    for (const QString& name : m_job->models()) {
      const auto it = live.find(name.toStdString());
      if (it == live.end()) continue;
      store::ModelInference m;
      m.model = it->first;
      m.points = it->second;
      auto same = std::find_if(shown.begin(), shown.end(), [&](const auto& s) { return s.model == m.model; });
      if (same != shown.end())
        *same = std::move(m);
      else
        shown.push_back(std::move(m));
    }
  }
  m_panel->setEmptyMessage(m_dir.isEmpty()
                               ? tr("Open a project to see its inference measurements.")
                               : tr("No inference measurements in this project yet: press Measure... to measure its "
                                    "models' prefill, decode and memory against the prompt length (or run pha bench "
                                    "inference --project %1).")
                                     .arg(m_dir));
  m_panel->setRuns(std::move(shown));
  updateButtons();
}

void InferenceTab::updateButtons() {
  const bool busy = m_job->isRunning();
  m_measure->setEnabled(!busy && !m_dir.isEmpty() && m_blocked.isEmpty());
  m_measure->setToolTip(!m_blocked.isEmpty() ? m_blocked
                        : m_dir.isEmpty()    ? tr("Open a project first")
                                             : tr("Measure the project's models: prefill, decode and end-to-end speed "
                                                  "and decode memory at each prompt length, each point in a fresh "
                                                  "pha process"));
  m_cancel->setVisible(busy);
  m_cancel->setEnabled(busy && !m_job->cancelRequested());
  m_progress->setVisible(busy);
}

void InferenceTab::setStatus(const QString& text) {
  m_status->setText(text);
  m_status->setToolTip(text);
  m_status->setVisible(!text.isEmpty());
}

void InferenceTab::fail(const QString& message) {
  m_lastError = message;
  setStatus(message);
  emit errorOccurred(message);
}

void InferenceTab::measureWithDialog() {
  if (m_dir.isEmpty()) return fail(tr("Open a project first (File > Open project)."));
  QStringList models;
  QString modelsError;
  try {
    project::LoadOptions options;
    options.require_data = false;
    for (const auto& m : runtime::project_profile_sweep(project::load_project(m_dir.toStdString(), options)).models)
      models << QString::fromStdString(m);
    if (models.isEmpty()) modelsError = tr("the project has no model to measure");
  } catch (const std::exception& e) {
    modelsError = QString::fromUtf8(e.what());
  }
  InferenceMeasureDialog dialog(models, modelsError, this);
  if (dialog.exec() != QDialog::Accepted) return;
  measure(dialog.sweep());
}

bool InferenceTab::measure(const runtime::InferenceSweep& settings) {
  if (m_job->isRunning()) return false;
  if (m_dir.isEmpty()) {
    fail(tr("Open a project first (File > Open project)."));
    return false;
  }
  if (!m_blocked.isEmpty()) {
    fail(m_blocked);
    return false;
  }
  QString why = tr("no way to find the pha program was given");
  const QString program = m_findProgram ? m_findProgram(&why) : QString();
  if (program.isEmpty()) {
    fail(tr("Cannot measure inference: %1").arg(why));
    return false;
  }
  runtime::InferenceJobSpec spec;
  spec.project = m_dir.toStdString();
  spec.sweep = settings;
  spec.use_project_models = true;
  spec.program = program.toStdString();
  spec.store_path = m_storePath.toStdString();
  m_lastError.clear();
  m_job->start(std::move(spec), m_dir);
  m_progress->setRange(0, 0);  // busy until the sweep is known
  setStatus(tr("Reading the project's models and its store..."));
  updateButtons();
  emit busyChanged(true);
  return true;
}

void InferenceTab::cancel() {
  if (!m_job->isRunning()) return;
  m_job->cancel();
  setStatus(tr("Cancelling: the point being measured is dropped, the ones measured are recorded..."));
  updateButtons();
}

void InferenceTab::onProgress() {
  const int total = m_job->total(), done = static_cast<int>(m_job->points().size());
  if (total >= 0) {
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(done);
  }
  if (m_job->cancelRequested()) return refreshView();
  if (done == 0) {
    setStatus(tr("Measuring %1 point(s) of %2, each in a fresh pha process...")
                          .arg(total)
                          .arg(m_job->models().join(", ")));
  } else {
    const auto& p = m_job->points().back();
    const QString where = tr("%1, L = %2, batch %3").arg(QString::fromStdString(p.spec.model)).arg(p.spec.seq_len).arg(p.spec.batch);
    setStatus(p.error.empty() ? tr("Point %1 of %2 measured: %3: TTFT %4 ms, decode %5 ms/token")
                                            .arg(done)
                                            .arg(total)
                                            .arg(where)
                                            .arg(p.ttft_ms, 0, 'f', 1)
                                            .arg(p.decode_ms_per_token, 0, 'f', 3)
                                      : tr("Point %1 of %2 failed: %3: %4")
                                            .arg(done)
                                            .arg(total)
                                            .arg(where, QString::fromStdString(p.error)));
  }
  refreshView();
}

void InferenceTab::onFinished() {
  const int total = m_job->total(), done = static_cast<int>(m_job->points().size());
  int failed = 0;
  for (const auto& p : m_job->points()) failed += p.error.empty() ? 0 : 1;
  const QString failures = failed ? tr("; %1 point(s) failed (their rows say why)").arg(failed) : QString();
  if (!m_job->error().isEmpty() && !m_job->cancelled()) {
    reload();
    fail(tr("Inference measurement failed: %1").arg(m_job->error()));
  } else if (m_job->cancelled()) {
    reload();
    setStatus(tr("Cancelled after %1 of %2 point(s); %3 run(s) recorded with the points measured%4")
                          .arg(done)
                          .arg(std::max(total, 0))
                          .arg(m_job->recordedRuns())
                          .arg(failures));
  } else {
    reload();
    setStatus(tr("Inference measured: %1 of %2 point(s); %3 run(s) recorded%4")
                          .arg(done)
                          .arg(std::max(total, 0))
                          .arg(m_job->recordedRuns())
                          .arg(failures));
  }
  updateButtons();
  emit busyChanged(false);
  emit measureFinished();
}

}  // namespace pha::gui
