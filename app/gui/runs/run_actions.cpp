#include "gui/runs/run_actions.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QMenu>
#include <QMessageBox>
#include <QTableView>
#include <algorithm>
#include <map>

#include "gui/runs/run_browser.h"
#include "gui/runs/runs_model.h"
#include "store/run_manage.h"
#include "store/store.h"
#include "gui/runs/tag_editor_dialog.h"

namespace pha::gui {

namespace {

// One short write through a connection of its own (the store's busy timeout waits out a
// training writer's transaction). Returns the store's message on failure.
QString withStore(const QString& path, const std::function<void(store::Store&)>& op) {
  if (path.isEmpty()) return QObject::tr("No project is open.");
  try {
    auto s = store::Store::open(path.toStdString());
    op(s);
    return {};
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
}

QString label(const store::RunInfo& r) { return QString("#%1 %2").arg(r.id).arg(QString::fromStdString(r.name)); }

}  // namespace

RunActions::RunActions(RunBrowser* browser, QWidget* dialogParent, QObject* parent)
    : QObject(parent), m_browser(browser), m_parent(dialogParent) {
  // Queued: the edit's delegate is done with the model before the table is read again.
  connect(m_browser->model(), &RunsModel::runEdited, this, &RunActions::onRunEdited, Qt::QueuedConnection);
  QTableView* table = m_browser->table();
  table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table, &QWidget::customContextMenuRequested, this, &RunActions::showContextMenu);
  auto* del = new QAction(tr("Delete runs..."), table);
  del->setObjectName("deleteRunsAction");
  del->setShortcut(QKeySequence::Delete);
  del->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(del, &QAction::triggered, this, &RunActions::deleteSelection);
  table->addAction(del);
}

RunActions::~RunActions() = default;

// The table read again with the same runs selected and the same one current (F2 again renames it).
void RunActions::reload() {
  const QList<qint64> selected = m_browser->selectedRunIds();
  QTableView* table = m_browser->table();
  const QModelIndex current = table->currentIndex();
  const RunsModel* model = m_browser->model();
  const int currentRow = current.isValid() ? m_browser->proxy()->mapToSource(current).row() : -1;
  const auto* entry = currentRow >= 0 && !model->group(currentRow) ? model->entry(currentRow) : nullptr;
  const qint64 currentId = entry ? entry->run.id : 0;
  const int currentColumn = current.isValid() ? current.column() : 0;
  m_browser->reload(m_browser->storePath(), 0);
  if (!selected.isEmpty()) m_browser->selectRuns(selected);
  if (currentId != 0) {
    const int row = model->rowOfRun(currentId);
    const QModelIndex shown = row >= 0 ? m_browser->proxy()->mapFromSource(model->index(row, currentColumn)) : QModelIndex();
    if (shown.isValid()) table->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::NoUpdate);
  }
}

// One store write for one run: on failure the error (prefixed by `failure`) is emitted; the
// table is read again either way, and runChanged follows a success.
bool RunActions::writeRun(qint64 runId, const QString& failure, const std::function<void(store::Store&)>& op) {
  const QString error = withStore(m_browser->storePath(), op);
  reload();
  if (!error.isEmpty()) {
    emit errorOccurred(tr("%1: %2").arg(failure, error));
    return false;
  }
  emit runChanged(runId);
  return true;
}

bool RunActions::rename(qint64 runId, const QString& name) {
  return writeRun(runId, tr("Cannot rename run %1").arg(runId),
                  [&](store::Store& s) { s.rename_run(runId, name.trimmed().toStdString()); });
}

bool RunActions::setNotes(qint64 runId, const QString& notes) {
  return writeRun(runId, tr("Cannot save the notes of run %1").arg(runId),
                  [&](store::Store& s) { s.set_notes(runId, notes.toStdString()); });
}

bool RunActions::setTags(qint64 runId, const QStringList& tags) {
  QStringList add, remove;
  const QString error = withStore(m_browser->storePath(), [&](store::Store& s) {
    std::vector<std::string> now = s.tags(runId);
    for (const QString& t : tags)
      if (std::find(now.begin(), now.end(), t.toStdString()) == now.end()) add << t;
    for (const std::string& t : now)
      if (!tags.contains(QString::fromStdString(t))) remove << QString::fromStdString(t);
  });
  if (!error.isEmpty()) {
    emit errorOccurred(tr("Cannot change the tags of run %1: %2").arg(runId).arg(error));
    reload();
    return false;
  }
  return changeTags({runId}, add, remove);
}

// Every tag is checked (store::check_tag) before anything is written, so a bad tag changes
// nothing.
bool RunActions::changeTags(const QList<qint64>& runIds, const QStringList& add, const QStringList& remove) {
  const QString error = withStore(m_browser->storePath(), [&](store::Store& s) {
    for (const QString& t : add) store::check_tag(t.toStdString());
    for (qint64 id : runIds) {
      if (!s.get_run(id)) throw core::Error("no run " + std::to_string(id) + " in " + s.path());
      for (const QString& t : add) s.add_tag(id, t.toStdString());
      for (const QString& t : remove) s.remove_tag(id, t.toStdString());
    }
  });
  reload();
  if (!error.isEmpty()) {
    emit errorOccurred(tr("Cannot change the tags: %1").arg(error));
    return false;
  }
  for (qint64 id : runIds) emit runChanged(id);
  return true;
}

bool RunActions::editTagsOfSelection() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.isEmpty()) return false;
  std::map<QString, int> counts;
  const RunsModel* model = m_browser->model();
  for (qint64 id : ids)
    for (const QString& t : model->tagsOf(model->rowOfRun(id))) ++counts[t];
  // Every tag of the table, so that a tag used elsewhere is one click away.
  std::vector<std::pair<QString, int>> offered(counts.begin(), counts.end());
  for (const auto& [tag, n] : model->tagCounts())
    if (!counts.count(tag)) offered.emplace_back(tag, 0);
  std::sort(offered.begin(), offered.end());
  QStringList add, remove;
  const int n = static_cast<int>(ids.size());
  bool ok = false;
  if (m_tagChooser) {
    ok = m_tagChooser(offered, n, &add, &remove);
  } else {
    TagEditorDialog dialog(offered, n, m_parent);
    ok = dialog.exec() == QDialog::Accepted;
    add = dialog.added();
    remove = dialog.removed();
  }
  if (!ok || (add.isEmpty() && remove.isEmpty())) return false;
  return changeTags(ids, add, remove);
}

void RunActions::onRunEdited(qint64 runId, int column, const QString& value) {
  if (column == RunsModel::Name) rename(runId, value);
  else if (column == RunsModel::Notes) setNotes(runId, value);
  else if (column == RunsModel::Tags) setTags(runId, value.split(", ", Qt::SkipEmptyParts));
}

bool RunActions::deleteSelection() { return deleteRuns(m_browser->selectedRunIds()); }

bool RunActions::deleteRuns(const QList<qint64>& runIds) {
  if (runIds.isEmpty()) return false;
  const QString path = m_browser->storePath();
  std::vector<store::RunInfo> runs;
  const QString error = withStore(path, [&](store::Store& s) {
    runs = store::check_deletable(s, std::vector<std::int64_t>(runIds.begin(), runIds.end()));
  });
  if (!error.isEmpty()) {
    emit errorOccurred(tr("Cannot delete: %1").arg(error));
    return false;
  }
  Batch batch{path, runIds, {}};
  for (const auto& r : runs) batch.labels << label(r);
  const QString shown = batch.labels.size() <= 6 ? batch.labels.join(", ")
                                                 : batch.labels.mid(0, 5).join(", ") + tr(" and %1 more").arg(batch.labels.size() - 5);
  // Runs a search measured: said before asking. The search keeps its recorded decisions (a
  // decided rung stays decided without its runs: docs/search.md), but its run table loses them.
  QStringList searched;
  for (const auto& r : runs) {
    const QString role = m_browser->model()->searchRole(r.id);
    if (!role.isEmpty()) searched << tr("%1: %2").arg(label(r), role);
  }
  QString question =
      tr("Delete %n run(s) (%1) with their metrics, mixer snapshots, evaluations and checkpoint files?\n\n"
         "Edit > Undo delete (Ctrl+Alt+Z) brings them back until the window closes; then they leave the store.",
         nullptr, static_cast<int>(runs.size()))
          .arg(shown);
  if (!searched.isEmpty())
    question += tr("\n\nMeasured by a search:\n%1\nThe search keeps its recorded decisions and values (a decided rung "
                   "stays decided, nothing is trained again); its leaderboard and Compare lose these runs' curves.")
                    .arg(searched.mid(0, 6).join("\n") +
                         (searched.size() > 6 ? tr("\nand %1 more").arg(searched.size() - 6) : QString()));
  const bool yes = m_confirm ? m_confirm(question)
                             : QApplication::platformName() == "offscreen" ||
                                   QMessageBox::question(m_parent, tr("Delete runs"), question) == QMessageBox::Yes;
  if (!yes) return false;
  m_pending.push_back(std::move(batch));
  applyHidden();
  emit message(tr("Deleted %n run(s): %1. Edit > Undo delete (Ctrl+Alt+Z) brings them back until the window closes.", nullptr,
                  static_cast<int>(runs.size()))
                   .arg(shown),
               15000);
  emit undoAvailableChanged(true);
  return true;
}

bool RunActions::undoDelete() {
  if (m_pending.empty()) return false;
  const Batch batch = m_pending.back();
  m_pending.pop_back();
  applyHidden();
  m_browser->selectRuns(batch.ids);
  emit message(tr("Brought back %1.").arg(batch.labels.join(", ")), 8000);
  emit undoAvailableChanged(!m_pending.empty());
  return true;
}

QSet<qint64> RunActions::pendingDeletes() const {
  QSet<qint64> ids;
  for (const Batch& b : m_pending)
    if (b.storePath == m_browser->storePath())
      for (qint64 id : b.ids) ids.insert(id);
  return ids;
}

void RunActions::applyHidden() {
  m_browser->model()->setHiddenRuns(pendingDeletes());
  reload();
  emit hiddenRunsChanged(pendingDeletes());
}

QStringList RunActions::commitDeletes() {
  QStringList problems;
  for (const Batch& b : m_pending) {
    const QString error = withStore(b.storePath, [&](store::Store& s) {
      std::vector<std::int64_t> ids;
      for (qint64 id : b.ids)
        if (s.get_run(id)) ids.push_back(id);  // gone already: `pha runs delete` was quicker
      if (ids.empty()) return;
      for (const std::string& f : store::delete_runs(s, ids).failures) problems << QString::fromStdString(f);
    });
    if (!error.isEmpty()) problems << tr("%1: %2").arg(b.labels.join(", "), error);
  }
  m_pending.clear();
  m_browser->model()->setHiddenRuns({});
  emit hiddenRunsChanged({});
  emit undoAvailableChanged(false);
  return problems;
}

void RunActions::showContextMenu(const QPoint& pos) {
  QTableView* table = m_browser->table();
  const QModelIndex at = table->indexAt(pos);
  const QList<qint64> ids = m_browser->selectedRunIds();
  QMenu menu(table);
  QAction* rename = menu.addAction(tr("Rename\tF2"), this, [this] { m_browser->editCurrentName(); });
  rename->setEnabled(ids.size() == 1 && at.isValid());
  menu.addAction(tr("Tags..."), this, &RunActions::editTagsOfSelection)->setEnabled(!ids.isEmpty());
  QAction* notes = menu.addAction(tr("Edit notes"), this, [this, at] {
    QTableView* t = m_browser->table();
    const QModelIndex cell = m_browser->proxy()->index(at.row(), RunsModel::Notes);
    if (t->isColumnHidden(RunsModel::Notes)) m_browser->setColumnShown(RunsModel::Notes, true);
    t->edit(cell);
  });
  notes->setEnabled(ids.size() == 1 && at.isValid());
  menu.addSeparator();
  menu.addAction(tr("Delete %n run(s)...\tDel", nullptr, static_cast<int>(ids.size())), this, &RunActions::deleteSelection)
      ->setEnabled(!ids.isEmpty());
  menu.addAction(tr("Undo delete\tCtrl+Alt+Z"), this, &RunActions::undoDelete)->setEnabled(canUndoDelete());
  menu.exec(table->viewport()->mapToGlobal(pos));
}

}  // namespace pha::gui
