// The Training tab's "Processes" row (docs/gui.md, "Processes"): how many data-parallel
// processes this window trains each run with (local data parallel, docs/distributed.md). A
// setting of this window, not of project.json: the run is the same with 1 or N processes
// (training.batch_size stays the global batch), so the project does not change with it. Kept
// in QSettings under engine/processes, read when a queue starts. Beside it, "Runs at once"
// (engine/jobs): how many of the queue's training runs train side by side, each in its own
// process on its own threads (RunQueue::setJobs, `pha train --jobs`); 0 = auto (this machine's
// cores / each run's threads). A run's numbers do not depend on it.
#pragma once

#include <QWidget>

class QSpinBox;

namespace pha::gui {

class ProcessesSetting : public QWidget {
  Q_OBJECT
 public:
  explicit ProcessesSetting(QWidget* parent = nullptr);

  static constexpr const char* kSettingsKey = "engine/processes";
  // The allowed maximum: this machine's cores (at least 2, so the setting can be tried).
  static int maximum();
  // The saved value, clamped to 1 .. maximum().
  static int saved();

  static constexpr const char* kJobsKey = "engine/jobs";
  static int savedJobs();  // 0 (auto) .. maximum()

  int value() const;
  void setValue(int processes);
  int jobs() const;
  void setJobs(int jobs);

 private:
  QSpinBox* m_spin = nullptr;
  QSpinBox* m_jobs = nullptr;
};

}  // namespace pha::gui
