#include "gui/inference/inference_job.h"

#include <QThread>
#include <QTimer>
#include <exception>
#include <mutex>

namespace pha::gui {

// What crosses from the worker thread to the GUI thread, under `mutex`.
struct InferenceJob::HandOff {
  std::mutex mutex;
  runtime::RunControl control;  // atomics: read by the engine, written by cancel()
  int total = -1;
  QStringList models;
  std::vector<store::InferencePointResult> pending;
  QString error;
  bool cancelled = false;
  int recorded = 0;
};

InferenceJob::InferenceJob(QObject* parent) : QObject(parent) {
  m_timer = new QTimer(this);
  m_timer->setInterval(100);
  connect(m_timer, &QTimer::timeout, this, &InferenceJob::drain);
}

InferenceJob::~InferenceJob() {
  if (m_thread) {
    m_handOff->control.request_cancel();
    m_thread->wait();
    delete m_thread;
  }
}

bool InferenceJob::cancelRequested() const { return m_handOff && m_handOff->control.cancel_requested(); }

void InferenceJob::cancel() {
  if (m_thread) m_handOff->control.request_cancel();
}

bool InferenceJob::start(runtime::InferenceJobSpec spec, const QString& projectDir) {
  if (m_thread) return false;
  m_handOff = std::make_shared<HandOff>();
  m_total = -1;
  m_models.clear();
  m_points.clear();
  m_error.clear();
  m_cancelled = false;
  m_recorded = 0;
  auto handOff = m_handOff;
  const std::string dir = projectDir.toStdString();
  m_thread = QThread::create([handOff, spec = std::move(spec), dir]() mutable {
    try {
      // Inference needs the project's models, not its corpus: a project trained elsewhere measures too.
      project::LoadOptions options;
      options.require_data = false;
      spec.resolved_project = std::make_shared<const project::Project>(project::load_project(dir, options));
      spec.on_start = [&](const runtime::InferenceSweep& sweep) {
        std::lock_guard<std::mutex> lock(handOff->mutex);
        handOff->total = static_cast<int>(runtime::inference_point_count(sweep));
        for (const auto& m : sweep.models) handOff->models << QString::fromStdString(m);
      };
      const auto onPoint = [&](const store::InferencePointResult& r) {
        std::lock_guard<std::mutex> lock(handOff->mutex);
        handOff->pending.push_back(r);
      };
      const runtime::InferenceJobResult r = runtime::run_inference_job(spec, onPoint, handOff->control);
      std::lock_guard<std::mutex> lock(handOff->mutex);
      handOff->cancelled = r.cancelled;
      handOff->recorded = static_cast<int>(r.run_ids.size());
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(handOff->mutex);
      handOff->error = QString::fromUtf8(e.what());
      handOff->cancelled = handOff->control.cancel_requested();
    } catch (...) {
      std::lock_guard<std::mutex> lock(handOff->mutex);
      handOff->error = QObject::tr("unknown error");
    }
  });
  connect(m_thread, &QThread::finished, this, &InferenceJob::onThreadFinished);
  m_thread->start();
  m_timer->start();
  return true;
}

void InferenceJob::drain() {
  if (!m_handOff) return;
  bool changed = false;
  {
    std::lock_guard<std::mutex> lock(m_handOff->mutex);
    if (m_handOff->total != m_total) {
      m_total = m_handOff->total;
      m_models = m_handOff->models;
      changed = true;
    }
    if (!m_handOff->pending.empty()) {
      for (auto& p : m_handOff->pending) m_points.push_back(std::move(p));
      m_handOff->pending.clear();
      changed = true;
    }
  }
  if (changed) emit progressed();
}

void InferenceJob::onThreadFinished() {
  m_timer->stop();
  m_thread->wait();
  m_thread->deleteLater();
  m_thread = nullptr;
  drain();
  {
    std::lock_guard<std::mutex> lock(m_handOff->mutex);
    m_error = m_handOff->error;
    m_cancelled = m_handOff->cancelled;
    m_recorded = m_handOff->recorded;
  }
  emit finished();
}

}  // namespace pha::gui
