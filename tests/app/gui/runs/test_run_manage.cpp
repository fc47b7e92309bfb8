// Managing runs in the window, as a researcher does with months of runs: the table shows tags
// and notes and filters by tag; F2 renames in place; the Tags and Notes cells, the tag editor
// and the notes field write the store through the same operations as `pha runs`; Delete...
// asks, refuses a running run, hides the runs with an undo until the window closes and then
// deletes them in one transaction; a `pha runs delete` while the window reads the store leaves
// the window showing what is there, with no error.
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTest>
#include <filesystem>
#include <gtest/gtest.h>

#include "gui/docks.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/runs/run_actions.h"
#include "gui/runs/run_browser.h"
#include "gui/runs/run_notes_panel.h"
#include "gui/runs/runs_model.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "tests/app/gui/store_fixture.h"
#include "gui/runs/tag_editor_dialog.h"
#include "tests/app/gui/window_project.h"

using namespace pha::gui;
namespace st = pha::store;
using nlohmann::json;

namespace {

struct Table {
  QTableView table;
  QLineEdit filter;
  QComboBox kind, tags;
  RunBrowser browser{&table, &filter, &kind, nullptr};
  RunActions actions{&browser, nullptr};
  QStringList errors;
  Table() {
    table.setSelectionBehavior(QAbstractItemView::SelectRows);  // as the window's (docks.cpp)
    browser.setTagFilterCombo(&tags);
    QObject::connect(&actions, &RunActions::errorOccurred, [this](const QString& e) { errors << e; });
  }
  QString cell(std::int64_t id, int column) const {
    const int row = browser.model()->rowOfRun(id);
    return browser.model()->data(browser.model()->index(row, column)).toString();
  }
  QModelIndex shown(std::int64_t id, int column) const {
    return browser.proxy()->mapFromSource(browser.model()->index(browser.model()->rowOfRun(id), column));
  }
};

struct Runs {
  pha::test::StoreFixture f;
  std::int64_t a, b, c;
  Runs() {
    pha::test::FixtureRun r;
    r.val = {2.6, 2.4};
    r.steps = 20;
    a = f.add(r);
    r.name = "transformerpp-tiny";
    b = f.add(r);
    r.name = "sequential-tiny";
    c = f.add(r);
  }
  st::Store open() const { return st::Store::open(f.path().toStdString()); }
};

std::vector<std::string> tagsIn(const Runs& runs, std::int64_t id) { return runs.open().tags(id); }

}  // namespace

TEST(RunManage, TheTableShowsTagsAndNotesAndFiltersByTag) {
  QSettings().clear();
  Runs runs;
  {
    auto s = runs.open();
    s.add_tag(runs.a, "baseline");
    s.add_tag(runs.a, "lr-grid");
    s.add_tag(runs.b, "lr-grid");
    s.set_notes(runs.b, "diverged at step 40\nlr too high");
  }
  Table t;
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  EXPECT_FALSE(t.table.isColumnHidden(RunsModel::Tags));
  EXPECT_TRUE(t.table.isColumnHidden(RunsModel::Notes)) << "a right-click on the header away (the Notes panel shows them)";
  EXPECT_EQ(t.cell(runs.a, RunsModel::Tags), "baseline, lr-grid");
  EXPECT_EQ(t.cell(runs.b, RunsModel::Notes), "diverged at step 40") << "one line in the cell";
  EXPECT_TRUE(t.browser.model()
                  ->data(t.browser.model()->index(t.browser.model()->rowOfRun(runs.b), RunsModel::Notes), Qt::ToolTipRole)
                  .toString()
                  .contains("lr too high"));
  // The tag box: every tag with its count; choosing one shows only its runs.
  ASSERT_EQ(t.tags.count(), 3);
  EXPECT_EQ(t.tags.itemText(1), "baseline (1)");
  EXPECT_EQ(t.tags.itemText(2), "lr-grid (2)");
  t.tags.setCurrentIndex(2);
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.b, runs.a}));
  t.tags.setCurrentIndex(1);
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.a}));
  // The chosen tag stays chosen across a reload.
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.a}));
  t.tags.setCurrentIndex(0);
  EXPECT_EQ(t.browser.shownRunIds().size(), 3);
  // The text filter finds tags and notes too.
  t.filter.setText("diverged");
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.b}));
  t.filter.setText("baseline");
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.a}));
}

TEST(RunManage, F2RenamesTheRunInPlaceAndTheStoreKeepsIt) {
  QSettings().clear();
  Runs runs;
  Table t;
  t.table.resize(900, 300);
  t.table.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&t.table));
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  t.table.setFocus();
  t.table.setCurrentIndex(t.shown(runs.b, RunsModel::Status));  // any cell of the row
  QTest::keyClick(&t.table, Qt::Key_F2);
  auto* editor = qobject_cast<QLineEdit*>(QApplication::focusWidget());
  ASSERT_NE(editor, nullptr) << "F2 opens the name for editing";
  EXPECT_EQ(editor->text(), "transformerpp-tiny");
  editor->selectAll();
  QTest::keyClicks(editor, "transformerpp-tiny lr3e-3");
  QTest::keyClick(editor, Qt::Key_Return);
  ASSERT_TRUE(QTest::qWaitFor([&] { return runs.open().get_run(runs.b)->name == "transformerpp-tiny lr3e-3"; }, 3000));
  EXPECT_EQ(t.cell(runs.b, RunsModel::Name), "transformerpp-tiny lr3e-3") << "the table read it back";
  EXPECT_TRUE(t.errors.isEmpty()) << t.errors.join("; ").toStdString();
  // An empty name is not a rename; the renamed run is still the current one.
  t.table.setFocus();
  const QModelIndex current = t.table.currentIndex();
  ASSERT_TRUE(current.isValid()) << "the renamed run stays the current one";
  const auto* entry = t.browser.model()->entry(t.browser.proxy()->mapToSource(current).row());
  ASSERT_NE(entry, nullptr);
  ASSERT_EQ(entry->run.id, runs.b);
  QTest::keyClick(&t.table, Qt::Key_F2);
  editor = qobject_cast<QLineEdit*>(QApplication::focusWidget());
  ASSERT_NE(editor, nullptr);
  editor->clear();
  QTest::keyClick(editor, Qt::Key_Return);
  QTest::qWait(50);
  EXPECT_EQ(runs.open().get_run(runs.b)->name, "transformerpp-tiny lr3e-3");
}

TEST(RunManage, TheTagsAndNotesCellsWriteTheStore) {
  QSettings().clear();
  Runs runs;
  runs.open().add_tag(runs.a, "old");
  Table t;
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  RunsModel* m = t.browser.model();
  const int row = m->rowOfRun(runs.a);
  EXPECT_TRUE(m->flags(m->index(row, RunsModel::Tags)) & Qt::ItemIsEditable);
  EXPECT_FALSE(m->flags(m->index(row, RunsModel::Status)) & Qt::ItemIsEditable);
  EXPECT_EQ(m->data(m->index(row, RunsModel::Tags), Qt::EditRole).toString(), "old");
  // Typed as a list: commas or spaces; the tags the cell no longer has are removed.
  ASSERT_TRUE(m->setData(m->index(row, RunsModel::Tags), "baseline, lr-grid  seed-sweep"));
  ASSERT_TRUE(QTest::qWaitFor([&] { return tagsIn(runs, runs.a).size() == 3; }, 3000));
  EXPECT_EQ(tagsIn(runs, runs.a), (std::vector<std::string>{"baseline", "lr-grid", "seed-sweep"}));
  ASSERT_TRUE(m->setData(m->index(m->rowOfRun(runs.a), RunsModel::Notes), "the baseline for the lr grid"));
  ASSERT_TRUE(QTest::qWaitFor([&] { return runs.open().get_run(runs.a)->notes == "the baseline for the lr grid"; }, 3000));
  EXPECT_TRUE(t.errors.isEmpty()) << t.errors.join("; ").toStdString();
}

TEST(RunManage, TheTagEditorAddsAndRemovesTagsOnASelection) {
  QSettings().clear();
  Runs runs;
  runs.open().add_tag(runs.a, "old");
  runs.open().add_tag(runs.c, "keep");
  Table t;
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  ASSERT_TRUE(t.browser.selectRuns({runs.a, runs.b}));
  std::vector<std::pair<QString, int>> offered;
  int selected = 0;
  t.actions.setTagChooser([&](const std::vector<std::pair<QString, int>>& counts, int n, QStringList* add, QStringList* remove) {
    offered = counts;
    selected = n;
    *add = {"grid"};
    *remove = {"old"};
    return true;
  });
  ASSERT_TRUE(t.actions.editTagsOfSelection());
  EXPECT_EQ(selected, 2);
  // The selection's tags with their counts, and the table's other tags at 0 (one click away).
  EXPECT_EQ(offered, (std::vector<std::pair<QString, int>>{{"keep", 0}, {"old", 1}}));
  EXPECT_EQ(tagsIn(runs, runs.a), (std::vector<std::string>{"grid"}));
  EXPECT_EQ(tagsIn(runs, runs.b), (std::vector<std::string>{"grid"}));
  EXPECT_EQ(tagsIn(runs, runs.c), (std::vector<std::string>{"keep"})) << "an unselected run is untouched";
  EXPECT_EQ(t.cell(runs.b, RunsModel::Tags), "grid");
}

TEST(RunManage, TheTagEditorDialogSaysWhatOkMeansForASelection) {
  TagEditorDialog d({{"all", 2}, {"some", 1}, {"none", 0}}, 2);
  QListWidget* list = d.list();
  ASSERT_EQ(list->count(), 3);
  EXPECT_EQ(list->item(0)->checkState(), Qt::Checked);
  EXPECT_EQ(list->item(1)->checkState(), Qt::PartiallyChecked);
  EXPECT_EQ(list->item(2)->checkState(), Qt::Unchecked);
  EXPECT_TRUE(d.added().isEmpty()) << "untouched: nothing changes";
  EXPECT_TRUE(d.removed().isEmpty());
  list->item(0)->setCheckState(Qt::Unchecked);
  list->item(1)->setCheckState(Qt::Checked);
  d.newTags()->setText("fresh, also-new");
  EXPECT_EQ(d.added(), (QStringList{"some", "fresh", "also-new"}));
  EXPECT_EQ(d.removed(), (QStringList{"all"}));
}

TEST(RunManage, DeleteAsksHidesTheRunsAndUndoBringsThemBack) {
  QSettings().clear();
  Runs runs;
  Table t;
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  QString asked;
  bool answer = false;
  t.actions.setConfirm([&](const QString& q) {
    asked = q;
    return answer;
  });
  ASSERT_TRUE(t.browser.selectRuns({runs.a, runs.c}));
  EXPECT_FALSE(t.actions.deleteSelection()) << "answered no";
  EXPECT_TRUE(asked.contains("#" + QString::number(runs.a) + " pha-tiny")) << asked.toStdString();
  EXPECT_TRUE(asked.contains("Undo delete")) << asked.toStdString();
  EXPECT_EQ(t.browser.shownRunIds().size(), 3);
  answer = true;
  ASSERT_TRUE(t.actions.deleteSelection());
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.b}));
  EXPECT_TRUE(runs.open().get_run(runs.a)) << "still in the store until the window closes";
  // A reload (the queue's, every 2 s) keeps them hidden.
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.b}));
  ASSERT_TRUE(t.actions.canUndoDelete());
  ASSERT_TRUE(t.actions.undoDelete());
  EXPECT_EQ(t.browser.shownRunIds(), (QList<qint64>{runs.c, runs.b, runs.a}));
  EXPECT_EQ(t.browser.selectedRunIds().size(), 2) << "the runs brought back are selected";
  EXPECT_FALSE(t.actions.canUndoDelete());
  // Deleted again, then committed (the window closes): gone from the store, which stays sound.
  ASSERT_TRUE(t.actions.deleteRuns({runs.a}));
  EXPECT_TRUE(t.actions.commitDeletes().isEmpty());
  EXPECT_FALSE(runs.open().get_run(runs.a));
  EXPECT_TRUE(runs.open().get_run(runs.c));
  EXPECT_EQ(runs.open().integrity_check(), "ok");
  EXPECT_TRUE(t.errors.isEmpty()) << t.errors.join("; ").toStdString();
}

TEST(RunManage, DeletingARunningRunIsRefusedWithTheStoresReason) {
  QSettings().clear();
  Runs runs;
  auto s = runs.open();
  st::NewRun nr;
  nr.project = "p";
  nr.name = "training-now";
  const std::int64_t live = s.create_run(nr);
  st::RunWriter writer(s, live);  // this process is its writer: it is running
  writer.metric("train/loss", 1, 64, 10, 4.0);
  writer.flush();
  Table t;
  ASSERT_TRUE(t.browser.reload(runs.f.path()));
  bool asked = false;
  t.actions.setConfirm([&](const QString&) { return asked = true; });
  EXPECT_FALSE(t.actions.deleteRuns({runs.a, live}));
  EXPECT_FALSE(asked) << "refused before asking";
  ASSERT_EQ(t.errors.size(), 1);
  EXPECT_TRUE(t.errors[0].contains("running")) << t.errors[0].toStdString();
  EXPECT_TRUE(t.errors[0].contains(QString::number(live))) << t.errors[0].toStdString();
  EXPECT_EQ(t.browser.shownRunIds().size(), 4) << "nothing hidden";
  EXPECT_FALSE(t.actions.canUndoDelete());
  writer.finish(st::RunStatus::Finished);
}


TEST(RunManageWindow, TheNotesFieldShowsAndSavesThePickedRunsNotes) {
  QSettings().clear();
  pha::test::WindowProject p;
  p.open().set_notes(p.ids[1], "first thoughts");
  p.open().add_tag(p.ids[1], "baseline");
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(p.dir())) << w.lastError().toStdString();
  RunNotesPanel* notes = w.docks().runNotes;
  EXPECT_FALSE(notes->isEnabled()) << "no run picked";
  ASSERT_TRUE(w.runBrowser()->selectRuns({p.ids[1]}));
  ASSERT_TRUE(notes->isEnabled());
  EXPECT_EQ(notes->runId(), p.ids[1]);
  EXPECT_EQ(notes->editor()->toPlainText(), "first thoughts");
  EXPECT_FALSE(notes->saveButton()->isEnabled()) << "nothing to save yet";
  notes->editor()->setPlainText("first thoughts\nthe lr grid's baseline");
  ASSERT_TRUE(notes->saveButton()->isEnabled());
  QTest::mouseClick(notes->saveButton(), Qt::LeftButton);
  EXPECT_EQ(p.open().get_run(p.ids[1])->notes, "first thoughts\nthe lr grid's baseline");
  EXPECT_FALSE(notes->saveButton()->isEnabled());
  // Two runs picked: the field is for one run.
  ASSERT_TRUE(w.runBrowser()->selectRuns({p.ids[0], p.ids[1]}));
  EXPECT_FALSE(notes->isEnabled());
}

TEST(RunManageWindow, DeletedRunsLeaveTheStoreWhenTheWindowCloses) {
  QSettings().clear();
  pha::test::WindowProject p;
  {
    MainWindow w;
    w.show();
    ASSERT_TRUE(w.openProject(p.dir())) << w.lastError().toStdString();
    w.runActions()->setConfirm([](const QString&) { return true; });
    ASSERT_TRUE(w.runBrowser()->selectRuns({p.ids[0]}));
    ASSERT_TRUE(w.runActions()->deleteSelection());
    QAction* undo = w.findChild<QAction*>("undoDeleteRuns");
    ASSERT_NE(undo, nullptr);
    EXPECT_TRUE(undo->isEnabled());
    EXPECT_EQ(w.runsModel()->rowOfRun(p.ids[0]), -1);
    EXPECT_TRUE(p.open().get_run(p.ids[0]));
    w.close();
  }
  EXPECT_FALSE(p.open().get_run(p.ids[0]));
  EXPECT_TRUE(p.open().get_run(p.ids[1]));
  EXPECT_EQ(p.open().integrity_check(), "ok");
}

#ifdef PHA_CLI_PATH
// The window open (reading the store every few ms, as while training) while `pha runs delete`
// deletes two runs: every read sees the runs whole or gone, never an error; the window then
// shows exactly the run left; a run the window had hidden and the CLI deleted commits quietly.
TEST(RunManageWindow, APhaRunsDeleteWhileTheWindowReadsLeavesItConsistent) {
  QSettings().clear();
  pha::test::WindowProject p;
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(p.dir())) << w.lastError().toStdString();
  w.runActions()->setConfirm([](const QString&) { return true; });
  ASSERT_TRUE(w.runActions()->deleteRuns({p.ids[0]}));  // hidden in the window, still stored
  QStringList errors;
  QObject::connect(&w, &MainWindow::errorShown, [&](const QString& e) { errors << e; });
  QProcess cli;
  cli.start(PHA_CLI_PATH, {"runs", "delete", QString::number(p.ids[0]), QString::number(p.ids[2]), "--yes", "--store",
                           QString::fromStdString(p.tp.store())});
  ASSERT_TRUE(cli.waitForStarted(10000));
  int reads = 0;
  while (cli.state() != QProcess::NotRunning) {
    ASSERT_TRUE(w.runBrowser()->reload(w.runBrowser()->storePath())) << w.runsModel()->lastError().toStdString();
    const int rows = w.runsModel()->runCount();
    EXPECT_TRUE(rows == 2 || rows == 1) << rows << " rows: a run half-deleted or the hidden one shown";
    ++reads;
    QTest::qWait(2);
  }
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  ASSERT_TRUE(w.runBrowser()->reload(w.runBrowser()->storePath()));
  EXPECT_EQ(w.runBrowser()->shownRunIds(), (QList<qint64>{p.ids[1]}));
  EXPECT_TRUE(w.runActions()->commitDeletes().isEmpty()) << "already gone is no problem";
  EXPECT_TRUE(errors.isEmpty()) << errors.join("; ").toStdString();
  EXPECT_GT(reads, 0);
  EXPECT_EQ(p.open().integrity_check(), "ok");
}
#endif
