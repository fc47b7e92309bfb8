#include "store/internal/file_locks.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <map>
#include <new>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/error.h"

namespace pha::store::detail {

namespace {

using FileKey = std::pair<dev_t, ino_t>;
using FcntlFn = int (*)(int, int, ...);
using CloseFn = int (*)(int);

// One private descriptor per locked file: a dup() of the first SQLite descriptor that
// locked it, so it shares no open file description with anything outside SQLite.
struct LockFile {
  int fd = -1;
  int users = 0;       // SQLite descriptors of this file that have locked through it
  bool posix = false;  // OFD locks refused here: plain POSIX locks on SQLite's descriptor
  bool ofd_used = false;  // an OFD call on this file succeeded (no falling back after that)
};

struct Registry {
  std::mutex mu;
  std::map<FileKey, LockFile> files;
  std::unordered_map<int, FileKey> sqlite_fds;  // SQLite descriptor -> its file
  FcntlFn real_fcntl = nullptr;
  CloseFn real_close = nullptr;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: SQLite may close files at exit
  return *r;
}

bool is_lock_command(int cmd) { return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK; }

int ofd_command(int cmd) {
  if (cmd == F_SETLK) return F_OFD_SETLK;
  if (cmd == F_SETLKW) return F_OFD_SETLKW;
  return F_OFD_GETLK;
}

// Forgets SQLite descriptor `fd`; closes the private descriptor when it was the file's last.
// Called with the registry locked.
void forget(Registry& r, int fd) {
  auto it = r.sqlite_fds.find(fd);
  if (it == r.sqlite_fds.end()) return;
  auto f = r.files.find(it->second);
  r.sqlite_fds.erase(it);
  if (f == r.files.end()) return;
  if (--f->second.users > 0) return;
  if (f->second.fd >= 0) r.real_close(f->second.fd);
  r.files.erase(f);
}

// The file record for SQLite descriptor `fd`, registering it on first use; nullptr when the
// descriptor cannot be examined (the caller then uses the plain call).
LockFile* file_of(Registry& r, int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return nullptr;
  const FileKey key{st.st_dev, st.st_ino};
  auto known = r.sqlite_fds.find(fd);
  if (known != r.sqlite_fds.end() && known->second != key) forget(r, fd);  // number reused
  auto it = r.files.find(key);
  if (it == r.files.end()) {
    LockFile lf;
    lf.fd = r.real_fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (lf.fd < 0) return nullptr;
    it = r.files.emplace(key, lf).first;
  }
  if (r.sqlite_fds.emplace(fd, key).second) ++it->second.users;
  return &it->second;
}

int locking_fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);  // glibc's fcntl reads its third argument the same way
  va_end(ap);
  Registry& r = registry();
  if (!is_lock_command(cmd) || arg == nullptr) return r.real_fcntl(fd, cmd, arg);

  auto* lock = static_cast<struct flock*>(arg);
  std::unique_lock<std::mutex> guard(r.mu);
  LockFile* f = file_of(r, fd);
  if (f == nullptr || f->posix) {
    guard.unlock();
    return r.real_fcntl(fd, cmd, lock);
  }
  struct flock ofd = *lock;
  ofd.l_pid = 0;  // required by OFD locks
  const int lock_fd = f->fd;
  if (cmd == F_SETLKW) guard.unlock();  // a blocking wait must not hold up other files
  int rc = r.real_fcntl(lock_fd, ofd_command(cmd), &ofd);
  const int err = errno;
  if (!guard.owns_lock()) guard.lock();
  LockFile* again = file_of(r, fd);
  if (rc == -1 && err == EINVAL && again != nullptr && !again->ofd_used) {
    // This kernel or file system has no OFD locks: POSIX locks for this file from now on
    // (nothing was locked through the private descriptor yet).
    again->posix = true;
    guard.unlock();
    return r.real_fcntl(fd, cmd, lock);
  }
  if (rc == 0 && again != nullptr) again->ofd_used = true;
  guard.unlock();
  if (cmd == F_GETLK && rc == 0) *lock = ofd;  // l_type F_UNLCK or the conflicting lock
  errno = err;
  return rc;
}

int tracking_close(int fd) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> guard(r.mu);
    forget(r, fd);
  }
  return r.real_close(fd);
}

// A forked child shares the private descriptors' open file descriptions, and with them the
// parent's locks: it must not lock or unlock through them. (Every child of this program
// execs at once; this only keeps one that does not from releasing the parent's locks.)
void after_fork_in_child() {
  Registry& r = registry();
  new (&r.mu) std::mutex;  // another thread may have held it at fork(): the child has one thread
  for (const auto& [key, f] : r.files)
    if (f.fd >= 0) r.real_close(f.fd);  // the parent's descriptions (and locks) live on in it
  r.files.clear();
  r.sqlite_fds.clear();
}

void install_once() {
  sqlite3_vfs* vfs = sqlite3_vfs_find("unix");
  if (vfs == nullptr || vfs->iVersion < 3 || vfs->xSetSystemCall == nullptr || vfs->xGetSystemCall == nullptr)
    throw core::Error("SQLite", "the unix VFS cannot be hooked for file locks (needs sqlite3_vfs version 3)");
  Registry& r = registry();
  r.real_fcntl = reinterpret_cast<FcntlFn>(vfs->xGetSystemCall(vfs, "fcntl"));
  r.real_close = reinterpret_cast<CloseFn>(vfs->xGetSystemCall(vfs, "close"));
  if (r.real_fcntl == nullptr || r.real_close == nullptr)
    throw core::Error("SQLite", "the unix VFS has no fcntl/close system call entries to hook");
  // Every unix VFS variant (unix, unix-excl, ...) shares one system-call table.
  if (vfs->xSetSystemCall(vfs, "fcntl", reinterpret_cast<sqlite3_syscall_ptr>(&locking_fcntl)) != SQLITE_OK ||
      vfs->xSetSystemCall(vfs, "close", reinterpret_cast<sqlite3_syscall_ptr>(&tracking_close)) != SQLITE_OK)
    throw core::Error("SQLite", "cannot hook the unix VFS's fcntl/close system calls");
  pthread_atfork(nullptr, nullptr, &after_fork_in_child);
}

}  // namespace

void install_file_locks() {
  static std::once_flag once;
  std::call_once(once, install_once);
}

int file_lock_descriptors() {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mu);
  return static_cast<int>(r.files.size());
}

}  // namespace pha::store::detail
