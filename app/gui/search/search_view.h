// SearchView: the Search dock. The open project's architecture search (its "search" section,
// docs/search.md): a Results tab with the leaderboard, the rung chart, the layer patterns of the
// best trials and (two objectives) the Pareto chart; a Section tab with the section's form.
// Start runs (or continues) the search through the window's queue (QueueController::runSearch:
// the engine's run_search in the queue's worker thread); Cancel is the queue's cancel. While it
// runs the view follows RunQueue's searchRunStarted / searchUpdated / searchEnded (a redraw per
// decided rung, a table row per started run); otherwise it shows what the store holds
// (runtime::search_status), so a killed search shows where it stopped and Start continues it
// (finished rung runs reused, interrupted ones resumed from their checkpoints). Promote adds the
// selected trial to project.json as a variant (runtime::promote_search_trial); Compare sends the
// selected trials' rung runs to the Compare dock.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>

#include "search_runner/search_job.h"

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace pha::gui {

class LayerStrip;
class ProjectSession;
class QueueController;
class RunQueue;
class RungChart;
class SearchForm;
class SearchLeaderboardModel;
class SearchParetoChart;

class SearchView : public QWidget {
  Q_OBJECT
 public:
  SearchView(ProjectSession* session, RunQueue* queue, QWidget* parent = nullptr);
  void setQueueController(QueueController* controller);

  // Reads the open project's section and what the store holds of its search.
  void refresh();
  // Reads only the search's state again (the store changed: a rung run ended or was deleted,
  // by the window or by `pha`): the Section form, its unsaved edits and the tab stay as they are.
  void refreshStatus();
  bool hasSearchSection() const { return m_hasSection; }
  bool isSearching() const { return m_live; }
  // Starts (or continues) the search; jobs 0: the view's "runs at once". False with the reason
  // (errorOccurred) when it cannot start.
  bool start(int jobs = 0);
  void cancel();
  // The selected trial as a variant of project.json; name "" asks (proposed: <variant>-t<N>).
  bool promoteSelected(const QString& name = {});
  // The selected trials' runs (their latest rung's) into the Compare dock.
  bool compareSelected();
  void selectTrials(const QStringList& trialIds);  // searchTrialId of each
  QStringList selectedTrials() const;

  const search_runner::SearchSummary& summary() const { return m_shown; }
  SearchForm* form() const { return m_form; }
  SearchLeaderboardModel* leaderboard() const { return m_model; }
  QTableView* table() const { return m_table; }
  RungChart* rungChart() const { return m_rungs; }
  SearchParetoChart* paretoChart() const { return m_pareto; }
  LayerStrip* layerStrip() const { return m_strip; }
  QTabWidget* tabs() const { return m_tabs; }
  QString statusText() const;
  QString errorText() const { return m_error; }

 signals:
  void compareRequested(const QList<qint64>& runIds);
  void projectFileChanged(const QString& message);  // project.json changed: open the project again
  void sectionPresenceChanged(bool present);         // the menu action follows it
  void errorOccurred(const QString& message);
  void message(const QString& text, int timeoutMs);

 private:
  QWidget* buildResults();
  void connectQueue();
  void showSummary(const search_runner::SearchSummary& summary);
  void updateButtons();
  void updateStrip();
  void fail(const QString& message);
  void onRunStarted(const QString& project, const QString& job, const QString& label, int index, int planned);
  void onUpdated(const search_runner::SearchSummary& summary);
  void onEnded(const QString& status, const QString& message, const search_runner::SearchSummary& summary);

  ProjectSession* m_session;
  RunQueue* m_queue;
  QueueController* m_controller = nullptr;
  bool m_hasSection = false;
  bool m_live = false;   // a search of this project runs in the queue
  int m_liveJobs = 1;
  search_runner::SearchSummary m_base;   // the store's state when the view last read it
  search_runner::SearchSummary m_shown;  // what the view shows (base + live updates)
  QString m_progress;                   // the running search's line
  QString m_error;

  QLabel* m_status = nullptr;
  QSpinBox* m_jobs = nullptr;
  QPushButton* m_start = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_refresh = nullptr;
  QPushButton* m_promote = nullptr;
  QPushButton* m_compare = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTabWidget* m_sideTabs = nullptr;
  SearchForm* m_form = nullptr;
  SearchLeaderboardModel* m_model = nullptr;
  QSortFilterProxyModel* m_proxy = nullptr;
  QTableView* m_table = nullptr;
  RungChart* m_rungs = nullptr;
  SearchParetoChart* m_pareto = nullptr;
  LayerStrip* m_strip = nullptr;
};

}  // namespace pha::gui
