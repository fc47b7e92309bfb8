// ThreadMailbox: hands functions to the thread a QObject lives in. A posted function is queued
// under a std::mutex and the owner thread is woken with a string-based queued invocation, which
// carries no data of ours; the function is taken out under the same mutex. Posting a lambda
// with QMetaObject::invokeMethod hands its captures over through Qt's event queue, guarded by a
// QMutex (a futex) that ThreadSanitizer cannot see, so every such hand-off was reported as a
// race (docs/testing.md, tsan preset); through the mailbox the hand-off is a mutex TSan sees,
// and the tsan preset checks the run queue's threads for real races.
#pragma once

#include <QObject>
#include <deque>
#include <functional>
#include <mutex>

namespace pha::gui {

class ThreadMailbox : public QObject {
  Q_OBJECT
 public:
  explicit ThreadMailbox(QObject* parent = nullptr) : QObject(parent) {}
  // Under the mutex: the destruction (in the owner thread, at its end) comes after every post.
  ~ThreadMailbox() override;
  // From any thread: `fn` runs later in the thread this object lives in, in posting order.
  void post(std::function<void()> fn);

 private:
  Q_INVOKABLE void deliver();

  std::mutex m_mutex;
  std::deque<std::function<void()>> m_pending;
};

}  // namespace pha::gui
