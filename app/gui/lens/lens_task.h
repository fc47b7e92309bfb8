// LensTasks: runs the Lens dock's engine work (loading a checkpoint, the lens's passes) one job
// at a time in a worker thread, so that the window never waits on the model. A job is a
// function run in the worker and a function run on the GUI thread afterwards with the error
// text (empty on success; every exception is caught in the worker). A job submitted while
// another runs waits; a newer job with the same key replaces a waiting one (the last attention
// head asked for, not every head scrolled past).
#pragma once

#include <QObject>
#include <QString>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

class QThread;

namespace pha::gui {

class LensTasks : public QObject {
  Q_OBJECT
 public:
  using Work = std::function<void()>;
  using Done = std::function<void(const QString& error)>;
  explicit LensTasks(QObject* parent = nullptr);
  ~LensTasks() override;  // waits for the running job

  void submit(const QString& key, Work work, Done done);
  bool isBusy() const { return m_thread != nullptr || !m_waiting.empty(); }
  // Drops the waiting jobs (another run picked); the running one ends, its result is dropped.
  void cancelWaiting();

 signals:
  void busyChanged(bool busy);

 private:
  struct Job {
    QString key;
    Work work;
    Done done;
    quint64 generation = 0;
  };
  void startNext();
  void finished();

  std::deque<Job> m_waiting;
  Job m_running;
  QThread* m_thread = nullptr;
  quint64 m_generation = 0;
  std::shared_ptr<std::mutex> m_handOff = std::make_shared<std::mutex>();
  std::shared_ptr<QString> m_error = std::make_shared<QString>();
};

}  // namespace pha::gui
