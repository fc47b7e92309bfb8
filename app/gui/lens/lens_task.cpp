#include "gui/lens/lens_task.h"

#include <QThread>
#include <exception>

namespace pha::gui {

LensTasks::LensTasks(QObject* parent) : QObject(parent) {}

LensTasks::~LensTasks() {
  if (m_thread) {
    m_thread->wait();
    delete m_thread;
  }
}

void LensTasks::submit(const QString& key, Work work, Done done) {
  for (auto it = m_waiting.begin(); it != m_waiting.end();)
    it = it->key == key ? m_waiting.erase(it) : it + 1;
  m_waiting.push_back(Job{key, std::move(work), std::move(done), m_generation});
  if (!m_thread) startNext();
  emit busyChanged(true);
}

void LensTasks::cancelWaiting() {
  m_waiting.clear();
  ++m_generation;  // the running job's result is not shown
}

void LensTasks::startNext() {
  if (m_thread) return;  // a job's done() submitted another and started it
  if (m_waiting.empty()) {
    emit busyChanged(false);
    return;
  }
  m_running = std::move(m_waiting.front());
  m_waiting.pop_front();
  Work work = m_running.work;
  auto handOff = m_handOff;
  auto error = m_error;
  m_thread = QThread::create([work, handOff, error] {
    QString e;
    try {
      work();
    } catch (const std::exception& ex) {
      e = QString::fromUtf8(ex.what());
    } catch (...) {
      e = QObject::tr("unknown error");
    }
    std::lock_guard<std::mutex> lock(*handOff);  // the job's results cross threads under it
    *error = e;
  });
  connect(m_thread, &QThread::finished, this, &LensTasks::finished);
  m_thread->start();
}

void LensTasks::finished() {
  m_thread->wait();
  m_thread->deleteLater();
  m_thread = nullptr;
  QString error;
  {
    std::lock_guard<std::mutex> lock(*m_handOff);
    error = *m_error;
  }
  Job job = std::move(m_running);
  m_running = Job{};
  if (job.generation == m_generation && job.done) job.done(error);
  startNext();
}

}  // namespace pha::gui
