#include "gui/runs/run_browser.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QStyledItemDelegate>
#include <QSignalBlocker>
#include <QTableView>
#include <QTimer>

#include "gui/runs/runs_model.h"
#include "gui/project/store_watcher.h"

namespace pha::gui {

namespace {
// Saved header layouts are kept only while the column set is the same (a new column, e.g. the
// replica group, drops the old layout rather than misplacing it).
const char* const kHeaderKey = "runTable/header";
const char* const kColumnsKey = "runTable/columns";
const char* const kKindKey = "runTable/kind";

// The Name cell keeps the part of a name that tells runs of one family apart: the setting
// after the last '/' ("pha-tiny/lr=0.003" -> "pha-t…/lr=0.003"), eliding the family.
class RunNameDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

 protected:
  void initStyleOption(QStyleOptionViewItem* o, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(o, index);
    const int decoration = o->features.testFlag(QStyleOptionViewItem::HasDecoration) ? o->decorationSize.width() + 6 : 0;
    o->text = elideRunName(o->text, o->fontMetrics, o->rect.width() - decoration - 10);
  }
};
}  // namespace

QString elideRunName(const QString& name, const QFontMetrics& fm, int width) {
  if (fm.horizontalAdvance(name) <= width) return name;
  const int slash = name.lastIndexOf('/');
  if (slash <= 0 || slash + 1 >= name.size()) return fm.elidedText(name, Qt::ElideMiddle, width);
  const QString setting = name.mid(slash);
  const int room = width - fm.horizontalAdvance(setting);
  if (room < fm.horizontalAdvance(QStringLiteral("ab…"))) return fm.elidedText(setting, Qt::ElideLeft, width);
  return fm.elidedText(name.left(slash), Qt::ElideRight, room) + setting;
}

RunBrowser::RunBrowser(QTableView* table, QLineEdit* filter, QComboBox* kindFilter, QObject* parent)
    : QObject(parent), m_table(table), m_kind(kindFilter), m_model(new RunsModel(this)),
      m_proxy(new RunsFilterModel(this)) {
  m_proxy->setSourceModel(m_model);
  m_table->setModel(m_proxy);
  connect(filter, &QLineEdit::textChanged, m_proxy, &RunsFilterModel::setFilterText);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunBrowser::onSelectionChanged);
  // A group row's arrow (its name cell) or a double-click on it shows or hides its runs.
  connect(m_table, &QAbstractItemView::clicked, this, [this](const QModelIndex& i) {
    if (i.column() == RunsModel::Name) toggleGroup(i);
  });
  // A double-click shows or hides a group's runs, or edits a run's tags or notes in place; F2
  // renames the current run from any of its cells (the Name cell's editor).
  connect(m_table, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& i) {
    const int col = m_proxy->mapToSource(i).column();
    if ((col == RunsModel::Tags || col == RunsModel::Notes) && (i.flags() & Qt::ItemIsEditable)) m_table->edit(i);
    else toggleGroup(i);
  });
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* rename = new QAction(tr("Rename"), m_table);
  rename->setObjectName("renameRunAction");
  rename->setShortcut(Qt::Key_F2);
  rename->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(rename, &QAction::triggered, this, &RunBrowser::editCurrentName);
  m_table->addAction(rename);
  m_saveTimer = new QTimer(this);
  m_saveTimer->setSingleShot(true);
  m_saveTimer->setInterval(300);
  connect(m_saveTimer, &QTimer::timeout, this, [this] {
    QSettings s;
    s.setValue(kHeaderKey, m_table->horizontalHeader()->saveState());
    s.setValue(kColumnsKey, static_cast<int>(RunsModel::ColumnCount));
  });
  m_table->setItemDelegateForColumn(RunsModel::Name, new RunNameDelegate(m_table));
  setupHeader();
  setupKindFilter();
}

void RunBrowser::setupHeader() {
  QHeaderView* header = m_table->horizontalHeader();
  header->setSectionsMovable(true);
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setContextMenuPolicy(Qt::CustomContextMenu);
  header->setToolTip(tr("Click to sort; drag to reorder; right-click to choose the columns"));
  connect(header, &QWidget::customContextMenuRequested, this, &RunBrowser::showHeaderMenu);
  restoreHeader();
  // The Name column takes the width the others leave, at least a run name's (the last column
  // used to, and "Started" took 230 px for "08:41" while names were cut): fitted again when the
  // table or another column changes width.
  header->setStretchLastSection(false);
  m_table->viewport()->installEventFilter(this);
  connect(header, &QHeaderView::sectionResized, this, [this](int section) {
    if (section != RunsModel::Name) fitNameColumn();
  });
  // Sorting on only after the indicator is set: enabling it sorts at once, by the indicator
  // (column 0 ascending unless told otherwise).
  m_table->setSortingEnabled(true);
  connect(header, &QHeaderView::sectionMoved, this, &RunBrowser::saveHeaderLater);
  connect(header, &QHeaderView::sectionResized, this, &RunBrowser::saveHeaderLater);
  connect(header, &QHeaderView::sortIndicatorChanged, this, &RunBrowser::saveHeaderLater);
}

void RunBrowser::restoreHeader() {
  QHeaderView* header = m_table->horizontalHeader();
  QSettings s;
  if (s.value(kColumnsKey).toInt() == RunsModel::ColumnCount && header->restoreState(s.value(kHeaderKey).toByteArray()))
    return;
  resetColumns();
}

void RunBrowser::resetColumns() {
  QHeaderView* header = m_table->horizontalHeader();
  const QFontMetrics fm(m_table->font());
  const QFontMetrics hfm(header->font());
  const std::vector<int> order = RunsModel::defaultOrder();
  for (int visual = 0; visual < static_cast<int>(order.size()); ++visual) {
    const int c = order[static_cast<size_t>(visual)];
    header->moveSection(header->visualIndex(c), visual);
    header->setSectionHidden(c, !RunsModel::shownByDefault(c));
    // Wide enough for a typical cell and for the title (the sort arrow may cover its end).
    const QString title = m_model->headerData(c, Qt::Horizontal).toString();
    header->resizeSection(c, std::max(fm.horizontalAdvance(RunsModel::widthSample(c)) + 12,
                                      hfm.horizontalAdvance(title) + 14));
  }
  header->setSortIndicator(RunsModel::Id, Qt::DescendingOrder);  // newest first
  m_proxy->sort(RunsModel::Id, Qt::DescendingOrder);
  fitNameColumn();
  saveHeaderLater();
}

void RunBrowser::saveHeaderLater() { m_saveTimer->start(); }

int RunBrowser::longestNameWidth() const {
  // Measured from the text (the name delegate's size hint is its elided text). Group rows are
  // bold and carry an arrow; the first 500 rows shown are enough for a width.
  QFont bold = m_table->font();
  bold.setBold(true);
  const QFontMetrics fm(bold);
  int widest = 0;
  for (int r = 0; r < std::min(500, m_proxy->rowCount()); ++r)
    widest = std::max(widest, fm.horizontalAdvance(m_proxy->index(r, RunsModel::Name).data().toString()));
  return widest + fm.height() + 16;  // the arrow and the cell's margins
}

void RunBrowser::fitColumnsToContents() {
  QHeaderView* header = m_table->horizontalHeader();
  const QFontMetrics hfm(header->font());
  const int cap = std::max(120, m_table->viewport()->width() * 2 / 5);
  m_fittingName = true;  // the Name column is fitted once, below
  for (int c = 0; c < header->count(); ++c) {
    if (c == RunsModel::Name || header->isSectionHidden(c)) continue;
    const QString title = m_model->headerData(c, Qt::Horizontal).toString();
    const int need = std::min(cap, std::max(static_cast<QAbstractItemView*>(m_table)->sizeHintForColumn(c), hfm.horizontalAdvance(title) + 14));
    if (need > header->sectionSize(c)) header->resizeSection(c, need);
  }
  m_fittingName = false;
  fitNameColumn();
}

void RunBrowser::fitNameColumn() {
  if (m_fittingName) return;
  m_fittingName = true;
  QHeaderView* header = m_table->horizontalHeader();
  int others = 0;
  for (int c = 0; c < header->count(); ++c)
    if (c != RunsModel::Name && !header->isSectionHidden(c)) others += header->sectionSize(c);
  // At least the longest run name shown (the table scrolls sideways when the others leave less).
  const int least = std::max(m_table->fontMetrics().horizontalAdvance(RunsModel::widthSample(RunsModel::Name)) + 12,
                             std::min(longestNameWidth(), m_table->viewport()->width() * 3 / 5));
  const int want = std::max(least, m_table->viewport()->width() - others);
  if (!header->isSectionHidden(RunsModel::Name) && header->sectionSize(RunsModel::Name) != want)
    header->resizeSection(RunsModel::Name, want);
  m_fittingName = false;
}

bool RunBrowser::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_table->viewport() && event->type() == QEvent::Resize) fitNameColumn();
  return QObject::eventFilter(watched, event);
}

bool RunBrowser::editCurrentName() {
  const QModelIndex current = m_table->currentIndex();
  if (!current.isValid()) return false;
  const QModelIndex name = m_proxy->index(current.row(), RunsModel::Name);
  if (!(name.flags() & Qt::ItemIsEditable)) return false;  // a group row
  m_table->scrollTo(name);
  m_table->setCurrentIndex(name);
  m_table->edit(name);
  return true;
}

void RunBrowser::setTagFilterCombo(QComboBox* tags) {
  m_tags = tags;
  refreshTagFilter();
  connect(m_tags, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i >= 0) m_proxy->setTagFilter(m_tags->itemData(i).toString());
  });
}

// "All tags", then each tag of the store's runs with its count; the chosen one stays chosen
// while a run still carries it.
void RunBrowser::refreshTagFilter() {
  if (!m_tags) return;
  const QString chosen = m_proxy->tagFilter();
  QSignalBlocker block(m_tags);
  m_tags->clear();
  m_tags->addItem(tr("All tags"), QString());
  for (const auto& [tag, n] : m_model->tagCounts()) m_tags->addItem(QString("%1 (%2)").arg(tag).arg(n), tag);
  const int keep = m_tags->findData(chosen);
  m_tags->setCurrentIndex(keep >= 0 ? keep : 0);
  if (keep < 0 && !chosen.isEmpty()) m_proxy->setTagFilter(QString());
  m_tags->setEnabled(m_tags->count() > 1);
}

void RunBrowser::setTagFilter(const QString& tag) {
  if (!m_tags) {
    m_proxy->setTagFilter(tag);
    return;
  }
  const int i = m_tags->findData(tag);
  m_tags->setCurrentIndex(i >= 0 ? i : 0);
}

bool RunBrowser::selectRuns(const QList<qint64>& ids) {
  QItemSelection selection;
  for (qint64 id : ids) {
    const int row = m_model->rowOfRun(id);
    if (row < 0) continue;
    if (m_model->groupRowOf(row) >= 0 && !m_model->isExpanded(m_model->groupRowOf(row)))
      setGroupExpanded(m_model->groupRowOf(row), true);
    const QModelIndex shown = m_proxy->mapFromSource(m_model->index(row, 0));
    if (shown.isValid()) selection.select(shown, m_proxy->index(shown.row(), m_proxy->columnCount() - 1));
  }
  m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!selection.isEmpty()) {
    m_table->selectionModel()->setCurrentIndex(selection.indexes().first(), QItemSelectionModel::NoUpdate);
    m_table->scrollTo(selection.indexes().first());
  }
  return !selection.isEmpty();
}

void RunBrowser::setColumnShown(int column, bool shown) {
  QHeaderView* header = m_table->horizontalHeader();
  if (!shown && header->count() - header->hiddenSectionCount() <= 1) return;  // keep one column
  header->setSectionHidden(column, !shown);
  fitNameColumn();
  saveHeaderLater();
}

bool RunBrowser::isColumnShown(int column) const { return !m_table->horizontalHeader()->isSectionHidden(column); }

void RunBrowser::showHeaderMenu(const QPoint& pos) {
  QMenu menu(m_table);
  for (int c = 0; c < RunsModel::ColumnCount; ++c) {
    QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
    const QString tip = m_model->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
    if (!tip.isEmpty()) a->setText(a->text() + " - " + tip.section(" (", 0, 0));
    a->setCheckable(true);
    a->setChecked(isColumnShown(c));
    connect(a, &QAction::toggled, this, [this, c](bool on) { setColumnShown(c, on); });
  }
  menu.addSeparator();
  menu.addAction(tr("Default columns"), this, &RunBrowser::resetColumns);
  menu.exec(m_table->horizontalHeader()->mapToGlobal(pos));
}

void RunBrowser::setupKindFilter() {
  if (!m_kind) return;
  // Every kind the store knows (store::RunKind), then all of them.
  m_kind->addItem(tr("Training runs"), QString(store::to_string(store::RunKind::Train)));
  m_kind->addItem(tr("Profile and inference runs"), QString(store::to_string(store::RunKind::Profile)));
  m_kind->addItem(tr("All kinds"), QString());
  const int saved = m_kind->findData(QSettings().value(kKindKey, "train").toString());
  m_kind->setCurrentIndex(saved >= 0 ? saved : 0);
  applyKindFilter(m_kind->currentIndex());
  connect(m_kind, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    applyKindFilter(i);
    QSettings().setValue(kKindKey, m_kind->itemData(i).toString());
  });
}

void RunBrowser::applyKindFilter(int index) {
  const QString kind = m_kind->itemData(index).toString();
  m_proxy->setKindFilter(kind.isEmpty() ? std::nullopt
                                        : std::optional<store::RunKind>(store::run_kind_from_string(kind.toStdString())));
}

QString RunBrowser::storePath() const { return m_model->storePath(); }

bool RunBrowser::reload(const QString& storePath, qint64 keepSelected) {
  if (!m_model->reload(storePath)) {
    emit errorOccurred(tr("Cannot read the run store: %1").arg(m_model->lastError()));
    return false;
  }
  m_lastReloadMs = QDateTime::currentMSecsSinceEpoch();
  // The proxy does not re-sort by itself after a model reset: keep the user's sort.
  const QHeaderView* header = m_table->horizontalHeader();
  m_proxy->sort(header->sortIndicatorSection(), header->sortIndicatorOrder());
  fitColumnsToContents();
  const int row = m_model->rowOfRun(keepSelected);
  if (row >= 0) {
    QSignalBlocker block(m_table->selectionModel());
    const QModelIndex shown = m_proxy->mapFromSource(m_model->index(row, 0));
    if (shown.isValid()) m_table->selectRow(shown.row());
  }
  refreshTagFilter();
  emit reloaded();
  return true;
}

void RunBrowser::applyStoreChange(const QString& storePath, const StoreChange& change, qint64 keepSelected) {
  if (storePath.isEmpty() || storePath != this->storePath()) return;
  if (change.added.isEmpty() && change.removed.isEmpty() && m_model->updateRuns(storePath, change.changed)) {
    m_proxy->refilter();  // a new name or tag may match the filter now, or no longer
    refreshTagFilter();
    emit reloaded();
    return;
  }
  QList<qint64> keep;
  for (qint64 id : selectedRunIds())
    if (!change.removed.contains(id)) keep << id;
  if (keep.size() == 1) keepSelected = keep.first();
  if (change.removed.contains(keepSelected)) keepSelected = 0;
  if (!reload(storePath, keepSelected)) return;
  if (keep.size() > 1) selectRuns(keep);
}

void RunBrowser::clear() {
  m_model->setRuns({}, QString(), {});
  m_lastReloadMs = 0;
  refreshTagFilter();
  emit reloaded();
}

void RunBrowser::reloadThrottled(const QString& storePath, qint64 keepSelected, int minIntervalMs) {
  if (QDateTime::currentMSecsSinceEpoch() - m_lastReloadMs > minIntervalMs) reload(storePath, keepSelected);
}

void RunBrowser::toggleGroup(const QModelIndex& proxyIndex) {
  const int row = m_proxy->mapToSource(proxyIndex).row();
  if (!m_model->group(row)) return;
  setGroupExpanded(row, !m_model->isExpanded(row));
}

void RunBrowser::setGroupExpanded(int groupRow, bool expanded) {
  m_model->setExpanded(groupRow, expanded);
  m_proxy->refilter();
  const QHeaderView* header = m_table->horizontalHeader();
  m_proxy->sort(header->sortIndicatorSection(), header->sortIndicatorOrder());
}

// A selected group row stands for its replicas (what its statistics are over), so that
// "Compare selected" on a group compares them.
QList<qint64> RunBrowser::selectedRunIds() const {
  QList<qint64> ids;
  for (const QModelIndex& r : m_table->selectionModel()->selectedRows()) {
    const int row = m_proxy->mapToSource(r).row();
    if (const RunsModel::GroupRow* g = m_model->group(row)) {
      for (int replica : g->replicas)
        if (!ids.contains(m_model->entry(replica)->run.id)) ids << m_model->entry(replica)->run.id;
    } else if (!ids.contains(m_model->entry(row)->run.id)) {
      ids << m_model->entry(row)->run.id;
    }
  }
  return ids;
}

QList<qint64> RunBrowser::shownRunIds() const {
  QList<qint64> ids;
  for (int r = 0; r < m_proxy->rowCount(); ++r) {
    const int row = m_proxy->mapToSource(m_proxy->index(r, 0)).row();
    if (const auto* e = m_model->entry(row)) ids << e->run.id;
  }
  return ids;
}

QList<qint64> RunBrowser::finishedTrainingRunIds() const {
  QList<qint64> ids;
  for (int r = 0; r < m_model->runCount(); ++r) {
    const auto& run = m_model->entry(r)->run;
    if (run.status == store::RunStatus::Finished && run.kind == store::RunKind::Train) ids << run.id;
  }
  return ids;
}

bool RunBrowser::selectRunByName(const QString& name) {
  int best = -1;
  for (int r = 0; r < m_model->runCount(); ++r)
    if (QString::fromStdString(m_model->entry(r)->run.name) == name &&
        (best < 0 || m_model->entry(r)->run.id > m_model->entry(best)->run.id))
      best = r;
  if (best < 0) return false;
  if (m_model->groupRowOf(best) >= 0) setGroupExpanded(m_model->groupRowOf(best), true);
  QModelIndex shown = m_proxy->mapFromSource(m_model->index(best, 0));
  if (!shown.isValid() && m_kind) {  // hidden by the kind filter: show every kind
    m_kind->setCurrentIndex(m_kind->findData(QString()));
    shown = m_proxy->mapFromSource(m_model->index(best, 0));
  }
  if (!shown.isValid()) return false;
  m_table->selectRow(shown.row());
  return true;
}

void RunBrowser::onSelectionChanged() {
  const QList<qint64> ids = selectedRunIds();
  if (ids.size() != 1) return;
  const int row = m_model->rowOfRun(ids.first());
  if (row < 0) return;
  emit runChosen(m_model->storePath(), ids.first(), QString::fromStdString(m_model->entry(row)->run.name));
}

}  // namespace pha::gui
