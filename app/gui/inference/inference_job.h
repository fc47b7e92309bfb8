// InferenceJob: runs runtime::run_inference_job (the job `pha bench inference --project` runs)
// in a worker thread, never the GUI thread. Each point runs in a `pha __inference-point`
// process of its own (the engine's); the worker only appends to a mutex-guarded hand-off that a
// 100 ms timer drains on the GUI thread (progressed()), so the window never waits on a point.
// cancel() asks the engine to stop (the point being measured is dropped, its worker killed);
// what was measured before is recorded. Every exception ends the job with its message.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "runtime/inference_bench.h"

class QThread;
class QTimer;

namespace pha::gui {

class InferenceJob : public QObject {
  Q_OBJECT
 public:
  explicit InferenceJob(QObject* parent = nullptr);
  ~InferenceJob() override;  // cancels a running job and waits for it

  // Starts measuring the project `projectDir` (read without requiring its data: inference needs
  // only its models) with `spec`'s settings; false when a job is already running.
  bool start(runtime::InferenceJobSpec spec, const QString& projectDir);
  void cancel();
  bool isRunning() const { return m_thread != nullptr; }
  bool cancelRequested() const;

  // What the GUI thread has received so far (valid during and after the job).
  int total() const { return m_total; }               // points the sweep measures (-1: not known yet)
  QStringList models() const { return m_models; }
  const std::vector<store::InferencePointResult>& points() const { return m_points; }
  // After finished(): the error ("" when none), whether it was cancelled, the runs recorded.
  QString error() const { return m_error; }
  bool cancelled() const { return m_cancelled; }
  int recordedRuns() const { return m_recorded; }

 signals:
  void progressed();  // the sweep became known, or points arrived
  void finished();

 private:
  struct HandOff;
  void drain();
  void onThreadFinished();

  std::shared_ptr<HandOff> m_handOff;
  QThread* m_thread = nullptr;
  QTimer* m_timer = nullptr;
  int m_total = -1;
  QStringList m_models;
  std::vector<store::InferencePointResult> m_points;
  QString m_error;
  bool m_cancelled = false;
  int m_recorded = 0;
};

}  // namespace pha::gui
