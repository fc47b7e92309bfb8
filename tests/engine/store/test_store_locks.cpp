// The store's file locks against other code of the same process (docs/store.md, "The
// corruption of 2026-12-02"): a descriptor that is not SQLite's, opened and closed on
// runs.sqlite or its -shm (as Qt's file dialogs do to read a file's type), must not release
// this process's locks, and the locks must still exclude other processes. The other
// process is this test binary run again on one DISABLED_ peer test (no fork with a live
// connection: SQLite forbids it).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/internal/file_locks.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

extern char** environ;

namespace ps = pha::store;
namespace fs = std::filesystem;
using ps::test::TempDir;

namespace {

ps::NewRun run_named(const std::string& name) { return {"p", name, "v", "{}", "", 0, "cpu"}; }

// Runs this test binary's peer test with PHA_STORE_PEER=<mode>:<path>; its exit code.
int run_peer(const std::string& mode, const std::string& path) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {exe, "--gtest_also_run_disabled_tests", "--gtest_filter=StorePeer.DISABLED_Acts",
                                   "--gtest_brief=1"};
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("PHA_STORE_PEER=", 0) != 0) env_storage.emplace_back(*e);
  env_storage.push_back("PHA_STORE_PEER=" + mode + ":" + path);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// What Qt's QMimeDatabase (the file dialog's "Type" column) does to a file: open, read the
// magic bytes, close.
void sniff(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[16] = {};
  in.read(magic, sizeof magic);
}

}  // namespace

// The peer process: PHA_STORE_PEER=<mode>:<path>. Not a test of its own (DISABLED_).
TEST(StorePeer, DISABLED_Acts) {
  const char* spec = std::getenv("PHA_STORE_PEER");
  ASSERT_NE(spec, nullptr) << "run by test_store_locks' tests only";
  const std::string s = spec;
  const std::string mode = s.substr(0, s.find(':'));
  const std::string path = s.substr(s.find(':') + 1);
  if (mode == "write") {  // a short `pha train`: a run with points, finished, connection closed
    ps::Store st = ps::Store::open(path);
    const auto id = st.create_run(run_named("peer"));
    ps::RunWriter w(st, id, {});
    for (int step = 0; step < 50; ++step) w.metric("loss", step, step, step, 1.0 / (step + 1));
    w.finish(ps::RunStatus::Finished);
  } else if (mode.rfind("count=", 0) == 0) {  // `pha runs list`
    ps::Store st = ps::Store::open(path);
    EXPECT_EQ(st.list_runs().size(), std::stoul(mode.substr(6)));
    EXPECT_EQ(st.integrity_check(), "ok");
  } else if (mode == "locked") {  // a writer while the parent holds the write lock
    ps::OpenOptions o;
    o.busy_timeout = std::chrono::milliseconds(100);
    o.recover_interrupted = false;
    ps::Store st = ps::Store::open(path, o);
    EXPECT_THROW(st.create_run(run_named("must wait")), pha::core::Error);
  } else if (mode == "posix-sees-locks") {  // a classic POSIX lock user (sqlite3 shell, old pha)
    // WAL mode: every connection holds a read lock on the database file's SHARED range, and
    // a writer the WAL write lock, byte 120 of the -shm (SQLite's os_unix.c, UNIX_SHM_BASE).
    const struct {
      std::string file;
      off_t start, len;
    } probes[] = {{path, 0x40000002, 510}, {path + "-shm", 120, 1}};
    for (const auto& p : probes) {
      const int fd = ::open(p.file.c_str(), O_RDWR | O_CLOEXEC);
      ASSERT_GE(fd, 0) << p.file;
      struct flock probe {};
      probe.l_type = F_WRLCK;
      probe.l_whence = SEEK_SET;
      probe.l_start = p.start;
      probe.l_len = p.len;
      ASSERT_EQ(fcntl(fd, F_GETLK, &probe), 0);
      EXPECT_NE(probe.l_type, F_UNLCK) << "the parent's lock on " << p.file << " is invisible to POSIX locks";
      ::close(fd);
    }
  } else {
    FAIL() << "unknown peer mode " << mode;
  }
}

// The regression test for the corruption: before the fix, the sniff released this process's
// locks, the peer's close (last connection, as it believed) checkpointed and deleted the WAL
// and the -shm under our open connection, and what we wrote afterwards went into the deleted
// WAL, never reaching the file other processes read.
TEST(StoreLocks, ForeignCloseInTheProcessKeepsTheStoresLocks) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store window = ps::Store::open(path);
  window.create_run(run_named("mine"));
  ASSERT_TRUE(fs::exists(path + "-wal"));
  ASSERT_TRUE(fs::exists(path + "-shm"));

  for (const char* suffix : {"", "-wal", "-shm"}) sniff(path + suffix);

  ASSERT_EQ(run_peer("write", path), 0);
  EXPECT_TRUE(fs::exists(path + "-wal")) << "a peer deleted the WAL while this process had the store open";
  EXPECT_TRUE(fs::exists(path + "-shm"));
  ASSERT_EQ(window.list_runs().size(), 2u);  // sees the peer's run
  window.create_run(run_named("mine, after the peer"));
  for (const char* suffix : {"", "-wal", "-shm"}) sniff(path + suffix);
  ASSERT_EQ(run_peer("count=3", path), 0) << "this process's last run did not reach other processes";
  ASSERT_EQ(run_peer("write", path), 0);
  EXPECT_EQ(window.list_runs().size(), 4u);
  EXPECT_EQ(window.integrity_check(), "ok");
}

TEST(StoreLocks, TheLocksStillExcludeOtherProcesses) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  { ps::Store::open(path).create_run(run_named("setup")); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);  // a raw connection, same hooked VFS
  ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  sniff(path);  // must not release the write lock either
  EXPECT_EQ(run_peer("locked", path), 0);
  EXPECT_EQ(run_peer("posix-sees-locks", path), 0);
  ASSERT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(run_peer("write", path), 0);  // free again
}

TEST(StoreLocks, ConnectionsOfOneProcessShareTheirLocksAndReleaseTheirDescriptors) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  const int before = ps::detail::file_lock_descriptors();
  {
    ps::Store a = ps::Store::open(path);
    ps::Store b = ps::Store::open(path);
    const auto id = a.create_run(run_named("a"));
    ps::RunWriter w(a, id, {});
    w.metric("loss", 0, 0, 0, 1.0);
    w.flush();
    EXPECT_EQ(b.read_metric_full(id, "loss").size(), 1u);  // no lock conflict inside the process
    b.create_run(run_named("b"));
    w.finish(ps::RunStatus::Finished);
    EXPECT_GT(ps::detail::file_lock_descriptors(), before);
  }
  for (int i = 0; i < 50; ++i) ps::Store::open(dir.file("many-" + std::to_string(i) + ".sqlite")).create_run(run_named("x"));
  EXPECT_EQ(ps::detail::file_lock_descriptors(), before) << "lock descriptors leak when stores close";
}
