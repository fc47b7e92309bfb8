// RunActions: what the window does to saved runs, on the store's own operations (the same ones
// `pha runs rename/note/tag/untag/delete` call: Store::rename_run, set_notes, add_tag,
// remove_tag and store::delete_runs). The run table's in-place edits (RunsModel::runEdited),
// its context menu (Rename F2, Tags..., Notes, Delete... Del, Undo delete), the tag editor and
// the notes field all come here; each write is one short store transaction on the GUI thread,
// then the table is read again.
//
// Delete with undo: Delete... asks (setConfirm), refuses a running run with the engine's message
// (store::check_deletable), then hides the runs from the window at once; Edit > Undo delete
// (Ctrl+Alt+Z) brings back the last batch. The runs leave the store when the window closes or opens
// another project (commitDeletes), in one transaction per batch, their checkpoint files after
// it: until then `pha` and the window's other views (Report, Search) still see them, and a
// window that crashes deletes nothing. docs/gui.md, "Managing runs".
#pragma once

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

class QWidget;

namespace pha::store {
class Store;
}

namespace pha::gui {

class RunBrowser;

class RunActions : public QObject {
  Q_OBJECT
 public:
  RunActions(RunBrowser* browser, QWidget* dialogParent, QObject* parent = nullptr);
  ~RunActions() override;

  // Each returns false (and emits errorOccurred with the store's message) when the store refused.
  bool rename(qint64 runId, const QString& name);
  bool setNotes(qint64 runId, const QString& notes);
  // Exactly these tags on the run (adds what is missing, removes the rest).
  bool setTags(qint64 runId, const QStringList& tags);
  // Adds `add` to and removes `remove` from every run of `runIds` (the tag editor on a selection).
  bool changeTags(const QList<qint64>& runIds, const QStringList& add, const QStringList& remove);
  // The tag editor dialog on the selected runs; false when nothing was selected or it was cancelled.
  bool editTagsOfSelection();

  // Asks, then hides the runs (see above); false when refused, cancelled or nothing selected.
  bool deleteRuns(const QList<qint64>& runIds);
  bool deleteSelection();
  bool canUndoDelete() const { return !m_pending.empty(); }
  // Brings back the last deleted batch; false when there is none.
  bool undoDelete();
  // Deletes every hidden batch from its store. Returns the problems (empty: all deleted); a run
  // that is no longer in the store (deleted meanwhile by `pha runs delete`) is no problem.
  QStringList commitDeletes();
  // Run ids hidden in the window but still in the store (of the table's store).
  QSet<qint64> pendingDeletes() const;

  // Asked before a delete (the question names the runs); default a Yes/No message box, yes on
  // the offscreen platform.
  void setConfirm(std::function<bool(const QString&)> confirm) { m_confirm = std::move(confirm); }
  // The tag editor's result without a dialog (tests, offscreen): given the selection's tag
  // counts and the run count, returns {add, remove}; unset: the dialog.
  using TagChooser = std::function<bool(const std::vector<std::pair<QString, int>>& counts, int runs,
                                        QStringList* add, QStringList* remove)>;
  void setTagChooser(TagChooser chooser) { m_tagChooser = std::move(chooser); }

 signals:
  void errorOccurred(const QString& message);
  void message(const QString& text, int timeoutMs);
  void undoAvailableChanged(bool available);
  // A run's name, tags or notes changed in the store (the notes field follows).
  void runChanged(qint64 runId);
  // The runs hidden in the window (deleted, not yet committed) are now these (StoreWatcher
  // reports them as removed to every view).
  void hiddenRunsChanged(const QSet<qint64>& ids);

 private:
  struct Batch {
    QString storePath;
    QList<qint64> ids;
    QStringList labels;  // "#12 pha-tiny"
  };
  void onRunEdited(qint64 runId, int column, const QString& value);
  void showContextMenu(const QPoint& pos);
  void applyHidden();
  void reload();
  bool writeRun(qint64 runId, const QString& failure, const std::function<void(pha::store::Store&)>& op);

  RunBrowser* m_browser;
  QWidget* m_parent;
  std::vector<Batch> m_pending;
  std::function<bool(const QString&)> m_confirm;
  TagChooser m_tagChooser;
};

}  // namespace pha::gui
