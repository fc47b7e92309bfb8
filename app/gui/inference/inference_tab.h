// InferenceTab: the Efficiency dock's Inference tab. Shows the open project's inference runs
// (store::inference_runs, the newest run per model) in an InferencePanel, re-read when the store
// changes (MainWindow::onStoreChanged); Measure... asks for the settings (InferenceMeasureDialog)
// and measures the project's models in a worker thread (InferenceJob, the job of `pha bench
// inference --project`), with Cancel, "point k of n" progress and the points drawn as they
// arrive; the tab reads the store again when the job ends. Errors are shown, never thrown.
#pragma once

#include <QSet>
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

#include "runtime/inference_bench.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace pha::widgets {
class InferencePanel;
}

namespace pha::gui {

class InferenceJob;

class InferenceTab : public QWidget {
  Q_OBJECT
 public:
  explicit InferenceTab(QWidget* parent = nullptr);
  ~InferenceTab() override;

  // The open project: its folder, its name (the store's project column) and its store; empty
  // strings: none (the tab says to open one).
  void setProject(const QString& dir, const QString& name, const QString& storePath);
  // Reads the store again (the store changed, a job ended).
  void reload();
  // Runs deleted in the window but not yet removed from the store are not shown.
  void setHiddenRuns(const QSet<qint64>& ids);
  // Why Measure... cannot start now ("": it can), e.g. the run queue is training.
  void setBlockedReason(const QString& reason);
  // How the `pha` program is found (default: not at all, which Measure reports).
  void setProgramFinder(std::function<QString(QString* error)> finder) { m_findProgram = std::move(finder); }

  // Measure...: the settings dialog, then measure().
  void measureWithDialog();
  // Measures the project's models with these settings (seq_lens, batches, generate,
  // decode_timed); false with the reason shown when it cannot start.
  bool measure(const runtime::InferenceSweep& settings);
  void cancel();
  bool isBusy() const;

  widgets::InferencePanel* panel() const { return m_panel; }
  QString statusText() const;
  QString lastError() const { return m_lastError; }

 signals:
  void busyChanged(bool busy);
  void errorOccurred(const QString& message);
  void measureFinished();

 private:
  void refreshView();
  void onProgress();
  void onFinished();
  void updateButtons();
  void fail(const QString& message);
  void setStatus(const QString& text);

  widgets::InferencePanel* m_panel = nullptr;
  QPushButton* m_measure = nullptr;
  QPushButton* m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_status = nullptr;
  InferenceJob* m_job = nullptr;
  QString m_dir, m_name, m_storePath, m_blocked, m_lastError;
  QSet<qint64> m_hidden;
  std::vector<store::ModelInference> m_stored;  // newest first, as read
  std::function<QString(QString*)> m_findProgram;
};

}  // namespace pha::gui
