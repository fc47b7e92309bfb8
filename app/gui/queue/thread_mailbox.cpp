#include "gui/queue/thread_mailbox.h"

#include <QMetaObject>

namespace pha::gui {

ThreadMailbox::~ThreadMailbox() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_pending.clear();
}

void ThreadMailbox::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.push_back(std::move(fn));
  }
  QMetaObject::invokeMethod(this, "deliver", Qt::QueuedConnection);
}

void ThreadMailbox::deliver() {
  std::function<void()> fn;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pending.empty()) return;
    fn = std::move(m_pending.front());
    m_pending.pop_front();
  }
  fn();
}

}  // namespace pha::gui
