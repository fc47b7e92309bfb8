// Batching visibility, a reader racing a writer, crash detection, and a writer process killed
// with SIGKILL in the middle of a run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <thread>

#include "core/error.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;
using namespace std::chrono_literals;

namespace {
ps::NewRun run_named(const std::string& name) { return {"p", name, "v", "{}", "", 0, "cpu"}; }
}  // namespace

TEST(StoreConcurrency, BufferedPointsAreInvisibleUntilFlushed) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store writer_conn = ps::Store::open(path);
  ps::Store reader = ps::Store::open(path);
  std::int64_t id = writer_conn.create_run(run_named("batch"));
  ps::WriterOptions opt;
  opt.flush_interval = std::chrono::hours(1);
  ps::RunWriter w(writer_conn, id, opt);
  for (int s = 0; s < 100; ++s) w.metric("loss", s, s, s, 1.0 / (s + 1));
  EXPECT_EQ(w.pending_points(), 100u);
  EXPECT_TRUE(reader.read_metric_full(id, "loss").empty());
  EXPECT_FALSE(reader.summary(id, "loss"));
  w.flush();
  EXPECT_EQ(w.pending_points(), 0u);
  EXPECT_EQ(reader.read_metric_full(id, "loss").size(), 100u);
  EXPECT_EQ(reader.summary(id, "loss")->count, 100);
  w.finish(ps::RunStatus::Finished);
}

TEST(StoreConcurrency, TimerFlushesAboutOnceAnInterval) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store conn = ps::Store::open(path);
  ps::Store reader = ps::Store::open(path);
  std::int64_t id = conn.create_run(run_named("timer"));
  ps::WriterOptions opt;
  opt.flush_interval = 200ms;
  ps::RunWriter w(conn, id, opt);
  w.metric("loss", 0, 0, 0, 1.0);
  EXPECT_TRUE(reader.read_metric_full(id, "loss").empty());  // well inside the interval
  std::this_thread::sleep_for(250ms);
  w.metric("loss", 1, 1, 1, 0.5);  // past the interval: this call flushes both points
  EXPECT_EQ(reader.read_metric_full(id, "loss").size(), 2u);
  EXPECT_EQ(w.pending_points(), 0u);
  w.finish(ps::RunStatus::Finished);
}

TEST(StoreConcurrency, ReaderInTightLoopNeverSeesLocked) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  std::int64_t id = 0;
  {
    ps::Store setup = ps::Store::open(path);
    id = setup.create_run(run_named("race"));
  }
  std::atomic<bool> writing{true};
  std::atomic<long> reads{0};
  std::atomic<long> flushes{0};
  std::string reader_error;
  std::thread reader([&] {
    try {
      ps::Store conn = ps::Store::open(path);  // its own connection, opened in its thread
      std::int64_t last_count = 0;
      ps::RunListQuery q;
      q.summary_keys = {"loss"};
      while (writing.load()) {
        auto b = conn.read_metric(id, "loss", 500);
        auto runs = conn.list_runs(q);
        auto sum = conn.summary(id, "loss");
        std::int64_t count = sum ? sum->count : 0;
        if (count < last_count) throw std::runtime_error("count went backwards");
        last_count = count;
        if (runs.size() != 1) throw std::runtime_error("run list lost the run");
        reads.fetch_add(1);
      }
    } catch (const std::exception& e) {
      reader_error = e.what();
    }
  });
  {
    ps::Store conn = ps::Store::open(path);
    ps::WriterOptions opt;
    opt.flush_interval = 5ms;  // far more often than training would, to provoke contention
    ps::RunWriter w(conn, id, opt);
    auto end = std::chrono::steady_clock::now() + 3s;
    std::int64_t step = 0;
    while (std::chrono::steady_clock::now() < end) {
      for (int i = 0; i < 50; ++i, ++step) w.metric("loss", step, step * 10, step, 1.0 / (step + 1));
      w.flush();
      flushes.fetch_add(1);
    }
    w.finish(ps::RunStatus::Finished);
  }
  writing = false;
  reader.join();
  EXPECT_EQ(reader_error, "");
  EXPECT_GT(reads.load(), 10);
  EXPECT_GT(flushes.load(), 10);
  ps::Store check = ps::Store::open(path);
  EXPECT_EQ(check.integrity_check(), "ok");
}

TEST(StoreConcurrency, StaleHeartbeatMarksRunInterrupted) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store conn = ps::Store::open(path);
  std::int64_t id = conn.create_run(run_named("stale"));
  ps::RunWriter w(conn, id);  // this process is alive: the pid rule keeps the run running
  {
    ps::Store other = ps::Store::open(path);
    EXPECT_EQ(other.get_run(id)->status, ps::RunStatus::Running);
    EXPECT_TRUE(other.recovered_runs().empty());
  }
  std::this_thread::sleep_for(20ms);
  ps::OpenOptions strict;
  strict.stale_heartbeat = 5ms;
  ps::Store other = ps::Store::open(path, strict);
  EXPECT_EQ(other.recovered_runs(), std::vector<std::int64_t>{id});
  auto r = other.get_run(id);
  EXPECT_EQ(r->status, ps::RunStatus::Interrupted);
  EXPECT_NE(r->error.find("heartbeat"), std::string::npos) << r->error;
  w.finish(ps::RunStatus::Finished);
}

// The child writes steps forever, flushing every 200 points and reporting the last flushed
// step on a pipe; the parent kills it with SIGKILL after several flushes.
TEST(StoreConcurrency, KilledWriterLeavesConsistentStoreAndInterruptedRun) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  std::int64_t id = 0;
  {
    ps::Store setup = ps::Store::open(path);
    id = setup.create_run(run_named("victim"));
  }  // no connection is open across fork()
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    try {
      ps::Store conn = ps::Store::open(path);
      ps::WriterOptions opt;
      opt.flush_interval = std::chrono::hours(1);
      ps::RunWriter w(conn, id, opt);
      for (std::int64_t step = 0;; ++step) {
        w.metric("loss", step, step * 100, step, 2.0 + std::sin(step * 0.1));
        w.metric("lr", step, step * 100, step, 1e-3);
        if (step % 200 == 199) {
          w.flush();
          if (write(fds[1], &step, sizeof(step)) != sizeof(step)) _exit(3);
        }
      }
    } catch (...) {
      _exit(2);
    }
  }
  close(fds[1]);
  std::int64_t reported = -1;
  int reports = 0;
  std::int64_t step = 0;
  while (reports < 25 && read(fds[0], &step, sizeof(step)) == sizeof(step)) {
    reported = step;
    ++reports;
  }
  ASSERT_EQ(reports, 25) << "the child stopped early";
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);  // reaped: its pid is gone, not a zombie
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(WTERMSIG(status), SIGKILL);
  while (read(fds[0], &step, sizeof(step)) == sizeof(step)) reported = step;
  close(fds[0]);

  ps::Store store = ps::Store::open(path);
  EXPECT_EQ(store.integrity_check(), "ok");
  EXPECT_EQ(store.recovered_runs(), std::vector<std::int64_t>{id});
  auto run = store.get_run(id);
  EXPECT_EQ(run->status, ps::RunStatus::Interrupted);
  EXPECT_NE(run->error.find(std::to_string(child)), std::string::npos) << run->error;
  EXPECT_GT(run->ended_at, 0);
  for (const char* key : {"loss", "lr"}) {
    auto pts = store.read_metric_full(id, key);
    // Everything up to the last reported flush is there, as a gap-free prefix (a flush that
    // committed just before the kill but was not reported yet may add more).
    ASSERT_GE(static_cast<std::int64_t>(pts.size()), reported + 1) << key;
    for (std::size_t i = 0; i < pts.size(); ++i) ASSERT_EQ(pts[i].step, static_cast<std::int64_t>(i));
    EXPECT_EQ(pts.size() % 200, 0u) << "a partial flush became visible";
    auto sum = store.summary(id, key);
    ASSERT_TRUE(sum);
    EXPECT_EQ(sum->count, static_cast<std::int64_t>(pts.size()));
    EXPECT_EQ(sum->last_step, pts.back().step);
  }
  // Opening once more does not report it again.
  ps::Store again = ps::Store::open(path);
  EXPECT_TRUE(again.recovered_runs().empty());
}
