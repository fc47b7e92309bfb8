// The store as users use it (docs/store.md, "The corruption of 2026-12-02"): the window
// (offscreen) trains, pauses, cancels and evaluates in its worker thread, refreshes its run
// table, curves, Compare and report, opens file dialogs in the project folder (what released
// its locks before the fix), copies the store into another project and switches projects back
// and forth, while `pha` processes list, show, report, export, evaluate and train another run
// into the same store. Then the store must pass PRAGMA integrity_check and hold every run,
// metric point, evaluation row and checkpoint exactly once; every `pha` that failed must have
// said why in one clear line. PHA_SOAK_SECONDS in the environment (40 by default; ctest gives
// the long soak 300) bounds the activity; the test then lets what is running finish.
#include <QApplication>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QMimeDatabase>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>

#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/report/report_view.h"
#include "gui/monitor/run_monitor.h"
#include "gui/queue/run_queue.h"
#include "gui/runs/runs_model.h"
#include "store/store.h"
#include "gui/project/store_damage_banner.h"


using namespace pha::gui;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// How long the soak keeps acting: PHA_SOAK_SECONDS from the environment, 40 when unset.
int soakSeconds() {
  const QByteArray v = qgetenv("PHA_SOAK_SECONDS");
  bool ok = false;
  const int s = v.toInt(&ok);
  return ok && s > 0 ? s : 40;
}

constexpr int kSteps = 24;
constexpr int kEvalEvery = 8;

json soakProject(const pha::test::TempProject& tp) {
  json j = tp.text_project({{"steps", kSteps}, {"eval_every", kEvalEvery}, {"mixer_every", 4}, {"warmup_steps", 2}});
  j["name"] = "soak";
  json attn = pha::test::TempProject::tiny_model();
  attn["variant"] = "transformer";
  j["variants"] = {{{"name", "hybrid"}}, {{"name", "attn"}, {"model", attn}}};
  return j;
}

// One `pha` process: what it was asked and how it ended.
struct CliCall {
  QStringList args;
  int exitCode = -1;
  QString output;
  bool trains = false;
};

// Starts `pha` processes from the GUI thread, at most `parallel` at once, and keeps their ends.
class CliLoad : public QObject {
 public:
  CliLoad(QString project, int parallel) : m_project(std::move(project)), m_parallel(parallel) {}
  ~CliLoad() override {
    for (QProcess* p : m_running) p->waitForFinished(120000);
  }
  void tick(const std::vector<std::int64_t>& finishedRuns) {
    while (m_running.size() < m_parallel) start(next(finishedRuns));
  }
  bool idle() const { return m_running.empty(); }
  const std::vector<CliCall>& calls() const { return m_done; }

 private:
  CliCall next(const std::vector<std::int64_t>& finished) {
    const QString id = finished.empty() ? QString() : QString::number(finished[m_turn % finished.size()]);
    const int kind = static_cast<int>(m_turn++ % 7);
    CliCall c;
    if (kind == 0 || id.isEmpty()) c.args = {"runs", "list", "--project", m_project};
    else if (kind == 1) c.args = {"runs", "show", "--project", m_project, id};
    else if (kind == 2) c.args = {"report", m_project};
    else if (kind == 3) c.args = {"export", "--project", m_project, "--run", id, "--format", "csv", "--out",
                                  m_project + "/export-" + id + ".csv"};
    else if (kind == 4) c.args = {"eval", "--project", m_project, "--run", id, "--split", "valid"};
    else if (kind == 5) c.args = {"runs", "list", "--project", m_project, "--replicas"};
    else {
      c.args = {"train", m_project, "--run", "attn", "--quiet", "--no-profile"};
      c.trains = true;
    }
    return c;
  }
  void start(CliCall call) {
    auto* p = new QProcess(this);
    p->setProcessChannelMode(QProcess::MergedChannels);
    m_running.push_back(p);
    connect(p, &QProcess::finished, this, [this, p, call](int code, QProcess::ExitStatus status) mutable {
      call.exitCode = status == QProcess::NormalExit ? code : 128;
      call.output = QString::fromUtf8(p->readAll());
      m_done.push_back(call);
      m_running.erase(std::find(m_running.begin(), m_running.end(), p));
      p->deleteLater();
    });
    p->start(PHA_CLI_PATH, call.args);
  }

  QString m_project;
  std::size_t m_parallel;
  std::size_t m_turn = 0;
  std::vector<QProcess*> m_running;
  std::vector<CliCall> m_done;
};

// What Qt's file dialog does in the project folder: reads each file's type, runs.sqlite's and
// its -wal's and -shm's included (opening and closing them in this process).
void openDialogIn(QWidget* parent, const QString& dir) {
  QFileDialog dialog(parent, "Export", dir);
  dialog.setOption(QFileDialog::DontUseNativeDialog);
  dialog.setFileMode(QFileDialog::AnyFile);
  dialog.show();
  QTest::qWait(250);
  dialog.close();
  QMimeDatabase mime;
  for (const char* f : {"runs.sqlite", "runs.sqlite-wal", "runs.sqlite-shm"})
    mime.mimeTypeForFile(QFileInfo(dir + "/" + f));
}

std::vector<std::int64_t> finishedRuns(const std::string& store) {
  std::vector<std::int64_t> ids;
  try {
    pha::store::OpenOptions o;
    o.recover_interrupted = false;
    auto s = pha::store::Store::open(store, o);
    for (const auto& e : s.list_runs())
      if (e.run.status == pha::store::RunStatus::Finished && e.run.kind == pha::store::RunKind::Train)
        ids.push_back(e.run.id);
  } catch (const std::exception&) {
  }
  return ids;
}

// A `pha` that failed said why in one line naming what; never a store fault.
bool clearFailure(const CliCall& c) {
  const QString out = c.output.trimmed();
  const QString last = out.section('\n', -1);
  return last.startsWith("pha: error: ") && !out.contains("malformed") && !out.contains("disk I/O error") &&
         !out.contains("damaged");
}

}  // namespace

// The soak's loop, then every check on what the store holds.
TEST(StoreSoak, TheWindowAndThePhaProcessesShareTheStoreWithoutLosingAnything) {
  pha::test::TempProject a, b, c;
  a.write_project(soakProject(a));
  b.write_project(b.text_project());
  json jc = c.text_project();
  jc["data"]["path"] = "/no/such/corpus.txt";  // a project whose data is elsewhere
  c.write_project(jc);
  qputenv("PHA_CLI", PHA_CLI_PATH);
  const QString dirA = QString::fromStdString(a.dir().string());

  MainWindow w;
  w.resize(1280, 720);
  w.show();
  w.queueController()->setConfirm([](const QString&, const QStringList&) { return QueueController::RepeatChoice::All; });
  ASSERT_TRUE(w.openProject(dirA)) << w.lastError().toStdString();
  std::set<std::int64_t> windowRuns;
  std::map<std::int64_t, QString> windowStatus;
  QObject::connect(w.queue(), &RunQueue::runEnded, &w, [&](const QString&, qint64 id, const QString& status, const QString&) {
    if (id > 0) {
      windowRuns.insert(id);
      windowStatus[id] = status;
    }
  });
  int evaluations = 0, evaluationsOk = 0;
  QObject::connect(w.queue(), &RunQueue::evaluationEnded, &w, [&](qint64, const QString& status, const QString&) {
    ++evaluations;
    evaluationsOk += status == "finished";
  });

  CliLoad cli(dirA, 2);
  QElapsedTimer clock;
  clock.start();
  int pass = 0, switches = 0, dialogs = 0;
  w.runProject();
  const int seconds = soakSeconds();
  std::printf("store soak: %d s of activity\n", seconds);
  while (clock.elapsed() < seconds * 1000) {
    const auto finished = finishedRuns(a.store());
    cli.tick(finished);
    if (w.queue()->isBusy()) {
      // While the worker trains: the views refresh, dialogs open in the project folder.
      w.reloadRuns();
      if (finished.size() >= 2) w.compareFinishedRuns();
      if (!finished.empty() && !w.monitor()->isLive())
        w.monitor()->showStoredRun(QString::fromStdString(a.store()), finished.back());
      openDialogIn(&w, dirA);
      ++dialogs;
      if (pass % 3 == 1 && !w.queue()->isPaused()) {
        w.pauseOrResume();  // a pause, then a resume a moment later
        QTest::qWait(300);
        w.pauseOrResume();
      }
      if (pass % 3 == 2 && w.queue()->pendingCount() == 0) w.cancelRuns();
      QTest::qWait(400);
      continue;
    }
    // Idle: the store is copied into another project (in this process, while the window and
    // the pha processes have it open), projects are switched back and forth, a run evaluated.
    std::error_code ec;
    fs::copy_file(a.store(), c.store(), fs::copy_options::overwrite_existing, ec);
    for (const auto& dir : {b.dir(), c.dir(), a.dir()}) {
      EXPECT_TRUE(w.openProject(QString::fromStdString(dir.string()))) << w.lastError().toStdString();
      ++switches;
      openDialogIn(&w, QString::fromStdString(dir.string()));
      w.reportView()->refresh();
      QTest::qWait(200);
    }
    if (!finished.empty()) {
      QSignalSpy done(w.queue(), &RunQueue::evaluationEnded);
      if (w.queueController()->evaluateRun(QString::fromStdString(a.store()), finished.front())) done.wait(60000);
    }
    ++pass;
    w.runProject();
  }
  // Let everything end: the window's queue, then the pha processes.
  if (w.queue()->isBusy()) w.cancelRuns();
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.queue()->isBusy(); }, 180000));
  ASSERT_TRUE(QTest::qWaitFor([&] { return cli.idle(); }, 300000));
  ASSERT_TRUE(QTest::qWaitFor([&] { return !w.reportView()->isBuilding(); }, 20000));
  EXPECT_FALSE(w.storeBanner()->isVisible()) << w.storeBanner()->text().toStdString();
  EXPECT_GT(dialogs, 0);
  EXPECT_GT(switches, 0);

  // Every pha process either worked or said why plainly.
  int cliTrains = 0;
  for (const CliCall& call : cli.calls()) {
    if (call.exitCode == 0) cliTrains += call.trains;
    else EXPECT_TRUE(clearFailure(call)) << call.args.join(' ').toStdString() << " -> " << call.exitCode << "\n"
                                         << call.output.toStdString();
    EXPECT_FALSE(call.output.contains("malformed") || call.output.contains("disk I/O"))
        << call.args.join(' ').toStdString() << "\n" << call.output.toStdString();
  }

  // The store: sound, and every run, point, evaluation and checkpoint there exactly once.
  pha::store::Store s = pha::store::Store::open(a.store());
  ASSERT_EQ(s.integrity_check(), "ok");
  std::size_t trainRuns = 0;
  for (const auto& e : s.list_runs()) {
    if (e.run.kind != pha::store::RunKind::Train) continue;
    ++trainRuns;
    const auto id = e.run.id;
    const auto points = s.read_metric_full(id, "train/loss");
    for (std::size_t i = 1; i < points.size(); ++i)
      ASSERT_EQ(points[i].step, points[i - 1].step + 1) << "run " << id << ": a step lost or repeated";
    if (e.run.status == pha::store::RunStatus::Finished) {
      ASSERT_FALSE(points.empty()) << "run " << id;
      EXPECT_EQ(points.back().step - points.front().step + 1, kSteps) << "run " << id << ": steps lost";
      EXPECT_EQ(s.summary(id, "train/loss")->count, static_cast<std::int64_t>(points.size()));
      const auto val = s.read_metric_full(id, "val/loss");
      EXPECT_GE(val.size(), static_cast<std::size_t>(kSteps / kEvalEvery)) << "run " << id;
      // Its final evaluation's rows (valid and test splits at the last step) are all there.
      std::set<std::string> finalRows;
      for (const auto& ev : s.evals(id))
        if (ev.step == points.back().step) finalRows.insert(ev.task + "/" + ev.metric);
      for (const char* row : {"valid/loss", "test/loss"})
        EXPECT_TRUE(finalRows.count(row)) << "run " << id << " lost its final evaluation row " << row;
      const auto ckpts = s.checkpoints(id);
      ASSERT_FALSE(ckpts.empty()) << "run " << id << " lost its checkpoint";
      for (const auto& ck : ckpts) {
        EXPECT_TRUE(fs::exists(ck.path)) << ck.path;
        if (fs::exists(ck.path)) {
          EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(ck.path)), ck.bytes) << ck.path;
        }
      }
    }
    std::set<std::tuple<std::int64_t, std::string, std::int64_t, std::string>> seen;
    for (const auto& ev : s.evals(id))
      EXPECT_TRUE(seen.insert({ev.step, ev.task, ev.seq_len, ev.metric}).second)
          << "run " << id << ": evaluation row twice (" << ev.task << " " << ev.metric << ")";
    if (windowStatus.count(id)) {
      EXPECT_EQ(windowStatus[id].toStdString(), pha::store::to_string(e.run.status)) << id;
    }
  }
  for (std::int64_t id : windowRuns) EXPECT_TRUE(s.get_run(id).has_value()) << "window run " << id << " lost";
  EXPECT_EQ(trainRuns, windowRuns.size() + static_cast<std::size_t>(cliTrains))
      << "runs lost or duplicated (window " << windowRuns.size() << ", pha train " << cliTrains << ")";
  EXPECT_EQ(evaluations, evaluationsOk) << "a window evaluation failed";
  std::printf("soak: %lld s, %zu window runs, %d pha train, %zu pha calls, %d dialogs, %d project switches, "
              "%d window evaluations\n",
              static_cast<long long>(clock.elapsed() / 1000), windowRuns.size(), cliTrains, cli.calls().size(), dialogs,
              switches, evaluations);
}
