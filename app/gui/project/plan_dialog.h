// PlanDialog: the project's plan before it trains (Run > Plan project..., and before Run project
// when "Show the plan before each run" is on): runtime::plan_project, the function `pha plan`
// prints, computed on a worker thread (it may time a few training steps) and shown as a table of
// runs (steps, training tokens, parameters, tokens per parameter with the early-training mark,
// estimated time, state), the total, how the time was estimated and what each claim can detect.
// "Run project" accepts the dialog; the caller starts the queue. When the store already holds some
// of the runs (trained with the same configuration: runtime::trained_runs, the rule the plan's
// State column reads), the dialog itself asks what to train: "Train the N runs to train" or
// "Train all M again", and the queue asks nothing more.
#pragma once

#include <QDialog>
#include <QString>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace pha::runtime {
struct PlanReport;
}

namespace pha::gui {

class PlanDialog : public QDialog {
  Q_OBJECT
 public:
  // withRun: offer "Run project" (the dialog shown before a run) besides Close.
  PlanDialog(const QString& projectDir, bool withRun, QWidget* parent = nullptr);
  ~PlanDialog() override;

  // Whether the window shows this dialog before Run project (QSettings "plan/beforeRun", default on).
  static bool showBeforeRun();
  static void setShowBeforeRun(bool on);

  bool isReady() const { return m_ready; }  // the plan has been computed (or failed)
  QString errorText() const { return m_error; }
  QTableWidget* table() const { return m_table; }
  QString summaryText() const;
  QPushButton* runButton() const { return m_run; }
  QPushButton* runAllButton() const { return m_runAll; }
  // After accept(): whether only the runs still to train were chosen (else all of them).
  bool onlyRunsToTrain() const { return m_onlyToTrain; }

 signals:
  void planReady();

 private:
  void fill(const runtime::PlanReport& plan);

  QLabel* m_status;
  QTableWidget* m_table;
  QPlainTextEdit* m_summary;
  QPushButton* m_run = nullptr;
  QPushButton* m_runAll = nullptr;  // shown when some runs are already trained
  bool m_onlyToTrain = false;
  QCheckBox* m_beforeRun = nullptr;
  bool m_ready = false;
  QString m_error;
};

}  // namespace pha::gui
