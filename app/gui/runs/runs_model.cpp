#include "gui/runs/runs_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>
#include <QLocale>
#include <QRegularExpression>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "widgets/number_format.h"
#include "gui/runs/runs_model_internal.h"
#include "widgets/window_store.h"
#include "core/duration_format.h"
#include "store/run_times.h"
#include "core/metric_table.h"
#include "core/provenance_fields.h"
#include "store/search_store.h"
#include "store/store.h"

namespace pha::gui {

namespace runs_detail {

const std::optional<store::MetricSummary>& summaryAt(const store::RunListEntry& e, size_t i) {
  static const std::optional<store::MetricSummary> none;
  return i < e.summaries.size() ? e.summaries[i] : none;
}

QString valText(double v, bool accuracy) {
  return accuracy ? QString::number(100.0 * v, 'f', 2) + " %" : QString::number(v, 'f', 4);
}

// Compact: "42.1 s", "1m 40s", "2h 05m" (pha::format_duration, the one formatter).
QString formatDuration(double s) { return QString::fromStdString(core::format_duration(s)); }

// Compact, so that the default columns fit the dock: "14:05" today, "Dec 1" this year, else
// "2024-12"; the tooltip has the full time.
QString shortTime(qint64 ms) {
  if (ms <= 0) return QString();
  const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms);
  const QDate today = QDate::currentDate();
  if (t.date() == today) return t.toString("hh:mm");
  if (t.date().year() == today.year()) return QLocale::c().toString(t, "MMM d");
  return t.toString("yyyy-MM");
}
QString longTime(qint64 ms) {
  return ms > 0 ? QDateTime::fromMSecsSinceEpoch(ms).toString("yyyy-MM-dd hh:mm:ss") : QString();
}

QVariant processesText(int worldSize, const std::string& backend, bool sort) {
  if (sort) return worldSize;
  return worldSize > 1 && !backend.empty() ? QString("%1 (%2)").arg(worldSize).arg(QString::fromStdString(backend))
                                           : QString::number(worldSize);
}

QString precisionText(const std::string& envJson) {
  const auto fields = core::provenance_fields(envJson);
  const auto it = fields.find("precision");
  return it == fields.end() ? QString() : QString::fromStdString(it->second);
}

QString provenanceText(const std::string& envJson) {
  const auto fields = core::provenance_fields(envJson);
  if (fields.empty()) return QObject::tr("What produced this run was not recorded (a program older than store schema 7)");
  QStringList lines{QObject::tr("Produced by:")};
  std::set<std::string> shown;
  auto add = [&](const std::string& k) {
    const auto it = fields.find(k);
    if (it == fields.end() || !shown.insert(k).second) return;
    lines << QStringLiteral("%1: %2").arg(QString::fromStdString(k), QString::fromStdString(it->second));
  };
  for (const auto& k : core::provenance_summary_keys()) add(k);
  for (const auto& [k, v] : fields) add(k);
  return lines.join('\n');
}

}  // namespace runs_detail

using namespace runs_detail;

namespace {

// The run's validation metric: val/loss for text runs, else val/accuracy; which end is best is
// the metric table's (core/metric_table.h).
struct ValMetric {
  const store::MetricSummary* s = nullptr;
  bool accuracy = false;
  double best() const { return core::higher_is_better(s->key) ? s->max : s->min; }
};
ValMetric valMetric(const store::RunListEntry& e) {
  if (const auto& loss = summaryAt(e, kValLoss)) return {&*loss, false};
  if (const auto& acc = summaryAt(e, kValAccuracy)) return {&*acc, true};
  return {};
}

QColor statusColor(store::RunStatus s) {
  switch (s) {
    case store::RunStatus::Finished: return QColor(46, 160, 67);
    case store::RunStatus::Running: return QColor(37, 99, 235);
    case store::RunStatus::Failed:
    case store::RunStatus::Diverged: return QColor(215, 58, 73);
    case store::RunStatus::Cancelled:
    case store::RunStatus::Interrupted: return QColor(191, 135, 0);
    default: return QColor(128, 128, 128);
  }
}

}  // namespace

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

std::vector<std::string> RunsModel::summaryKeys() { return {"val/loss", "train/loss", "val/accuracy"}; }

QString RunsModel::widthSample(int column) {
  switch (column) {
    case Id: return "999";
    case Name: return "transformer-tiny";
    case Variant: return "transformer";
    case Status: return "cancelled";
    case Parameters: return "12.3 M";
    case BestVal:
    case LastVal:
    case FinalTrainLoss: return "12.3456";
    case TokensSeen: return "12.3 M";
    case Duration: return "9m 59s";
    case Started: return "Dec 31";
    case Created: return "2024-12-31 23:59:59";
    case Kind: return "profile";
    case Device: return "cuda:0";
    case Seed: return "3 seeds";
    case Processes: return "16 (gloo)";
    case Tags: return "baseline";
    case Notes: return "a note of some length";
    case Precision: return "bf16";
  }
  return "0000";
}

std::vector<int> RunsModel::defaultOrder() {
  return {Id,      Name,    Tags,  Status,  Parameters,     BestVal, TokensSeen, Duration, Started,
          Variant, Notes, LastVal, FinalTrainLoss, Kind,    Created,    Device,   Seed,    Processes, Precision};
}

void RunsModel::setRuns(std::vector<store::RunListEntry> runs, const QString& storePath,
                        std::vector<std::int64_t> tokensSeen,
                        const std::vector<std::pair<std::int64_t, std::string>>& tags,
                        std::vector<double> trainSeconds) {
  beginResetModel();
  tokensSeen.resize(runs.size(), -1);
  trainSeconds.resize(runs.size(), -1.0);
  m_runs.clear();
  m_tokens.clear();
  m_trainSeconds.clear();
  for (size_t i = 0; i < runs.size(); ++i) {
    if (m_hidden.contains(runs[i].run.id)) continue;
    m_runs.push_back(std::move(runs[i]));
    m_tokens.push_back(tokensSeen[i]);
    m_trainSeconds.push_back(trainSeconds[i]);
  }
  std::unordered_map<std::int64_t, QStringList> tagsOfId;
  for (const auto& [id, tag] : tags) tagsOfId[id] << QString::fromStdString(tag);
  m_tags.assign(m_runs.size(), {});
  for (size_t i = 0; i < m_runs.size(); ++i) {
    const auto it = tagsOfId.find(m_runs[i].run.id);
    if (it == tagsOfId.end()) continue;
    m_tags[i] = it->second;
    m_tags[i].sort();
  }
  m_storePath = storePath;
  buildGroups();
  endResetModel();
}

void RunsModel::setPausedRun(qint64 runId) {
  if (runId == m_pausedRun) return;
  const qint64 before = m_pausedRun;
  m_pausedRun = runId;
  for (qint64 id : {before, runId}) {
    const int row = rowOfRun(id);
    if (row >= 0) emit dataChanged(index(row, Status), index(row, Status));
  }
}

bool RunsModel::reload(const QString& storePath) {
  try {
    auto s = store::Store::open(storePath.toStdString(), widgets::windowReadOptions());
    store::RunListQuery q;
    q.summary_keys = summaryKeys();
    std::vector<store::RunListEntry> runs = s.list_runs(q);
    std::unordered_map<std::int64_t, store::MetricPoint> last;
    for (const auto& [id, p] : s.last_points("train/loss")) last[id] = p;
    std::vector<std::int64_t> seen;
    std::vector<double> clock;
    seen.reserve(runs.size());
    clock.reserve(runs.size());
    for (const auto& e : runs) {
      const auto it = last.find(e.run.id);
      seen.push_back(it == last.end() ? -1 : it->second.tokens);
      clock.push_back(it == last.end() || it->second.wall_ms <= 0 ? -1.0 : it->second.wall_ms / 1000.0);
    }
    QHash<qint64, QString> roles;
    std::set<std::string> projects;
    for (const auto& e : runs) projects.insert(e.run.project);
    for (const std::string& project : projects)
      for (const auto& [id, role] : store::search_run_roles(s, project)) roles.insert(id, QString::fromStdString(role.text));
    m_searchRole = std::move(roles);
    setRuns(std::move(runs), storePath, std::move(seen), s.all_tags(), std::move(clock));
    m_error.clear();
    return true;
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
}

bool RunsModel::updateRuns(const QString& storePath, const QSet<qint64>& ids) {
  if (storePath != m_storePath) return false;
  struct Update {
    int row;
    store::RunInfo run;
    QStringList tags;
  };
  std::vector<Update> updates;
  try {
    auto s = store::Store::open(storePath.toStdString(), widgets::windowReadOptions());
    for (const qint64 id : ids) {
      const int row = rowOfRun(id);
      const std::optional<store::RunInfo> run = row < 0 ? std::nullopt : s.get_run(id);
      if (!run) return false;
      const store::RunInfo& was = m_runs[static_cast<size_t>(row)].run;
      if (run->status != was.status || run->ended_at != was.ended_at || run->group != was.group) return false;
      QStringList tags;
      for (const std::string& t : s.tags(id)) tags << QString::fromStdString(t);
      tags.sort();
      updates.push_back({row, *run, tags});
    }
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
  for (Update& u : updates) {
    store::RunInfo& r = m_runs[static_cast<size_t>(u.row)].run;
    r.name = u.run.name;
    r.notes = u.run.notes;
    m_tags[static_cast<size_t>(u.row)] = u.tags;
    emit dataChanged(index(u.row, 0), index(u.row, ColumnCount - 1));
  }
  return true;
}

double RunsModel::runSeconds(int row) const {
  const size_t r = static_cast<size_t>(row);
  if (r >= m_runs.size()) return -1.0;
  // The one rule (store/run_times.h): Compare's Metrics and `pha runs list` show the same figure.
  const double last = r < m_trainSeconds.size() ? m_trainSeconds[r] : -1.0;
  return store::run_times(m_runs[r].run, last > 0 ? static_cast<std::int64_t>(std::llround(last * 1000.0)) : 0).training_s;
}

const store::RunListEntry* RunsModel::entry(int row) const {
  return row >= 0 && row < static_cast<int>(m_runs.size()) ? &m_runs[static_cast<size_t>(row)] : nullptr;
}

QStringList RunsModel::tagsOf(int row) const {
  return row >= 0 && row < static_cast<int>(m_tags.size()) ? m_tags[static_cast<size_t>(row)] : QStringList();
}

std::vector<std::pair<QString, int>> RunsModel::tagCounts() const {
  std::map<QString, int> counts;
  for (const QStringList& tags : m_tags)
    for (const QString& t : tags) ++counts[t];
  return {counts.begin(), counts.end()};
}

Qt::ItemFlags RunsModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (entry(index.row()) && (index.column() == Name || index.column() == Tags || index.column() == Notes))
    f |= Qt::ItemIsEditable;
  return f;
}

// Tags typed as "a, b c": split on commas and white space; Store::add_tag checks each.
bool RunsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !entry(index.row())) return false;
  const size_t row = static_cast<size_t>(index.row());
  store::RunInfo& r = m_runs[row].run;
  QString text = value.toString();
  switch (index.column()) {
    case Name:
      text = text.trimmed();
      if (text.isEmpty() || text.toStdString() == r.name) return false;
      r.name = text.toStdString();
      break;
    case Notes:
      if (text.toStdString() == r.notes) return false;
      r.notes = text.toStdString();
      break;
    case Tags: {
      QStringList tags = text.split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts);
      tags.removeDuplicates();
      tags.sort();
      if (tags == m_tags[row]) return false;
      m_tags[row] = tags;
      text = tags.join(", ");
      break;
    }
    default: return false;
  }
  emit dataChanged(index, index);
  emit runEdited(r.id, index.column(), text);
  return true;
}

int RunsModel::rowOfRun(qint64 runId) const {
  for (size_t i = 0; i < m_runs.size(); ++i)
    if (m_runs[i].run.id == runId) return static_cast<int>(i);
  return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_runs.size() + m_groups.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (const GroupRow* g = group(index.row())) {
    if (role == Qt::FontRole) {
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Variant &&
        index.column() != Status && index.column() != Kind && index.column() != Device)
      return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) return groupToolTip(*g, index.column());
    if (role == Qt::DisplayRole || role == SortRole)
      return groupValue(*g, index.column(), role == SortRole, isExpanded(index.row()));
    return {};
  }
  const auto* e = entry(index.row());
  if (!e) return {};
  if (role == RunIdRole) return QVariant::fromValue<qint64>(e->run.id);
  if (role == Qt::ForegroundRole && index.column() == Status) return QBrush(statusColor(e->run.status));
  if (role == Qt::FontRole && index.column() == Name && m_searchRole.contains(e->run.id)) {
    QFont italic;
    italic.setItalic(true);
    return italic;
  }
  if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Variant &&
      index.column() != Status && index.column() != Kind && index.column() != Device)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) return toolTipOf(index.row(), index.column());
  if (role == Qt::EditRole) {
    switch (index.column()) {
      case Name: return QString::fromStdString(e->run.name);
      case Tags: return m_tags[static_cast<size_t>(index.row())].join(", ");
      case Notes: return QString::fromStdString(e->run.notes);
      default: break;
    }
  }
  if (role == Qt::DisplayRole || role == SortRole) return valueOf(index.row(), index.column(), role == SortRole);
  return {};
}

// Display text, or (sort) the raw number; a missing number sorts last in ascending order.
QVariant RunsModel::valueOf(int row, int column, bool sort) const {
  const store::RunListEntry& e = m_runs[static_cast<size_t>(row)];
  const store::RunInfo& r = e.run;
  const auto number = [sort](double v, const QString& text) { return sort ? QVariant(v) : QVariant(text); };
  switch (column) {
    case Id: return sort ? QVariant::fromValue<qint64>(r.id) : QVariant(QString::number(r.id));
    // A member of a group row is indented under it.
    case Name: return sort || m_groupOf[static_cast<size_t>(row)] < 0 ? QString::fromStdString(r.name)
                                                                       : QString("\u2003") + QString::fromStdString(r.name);
    case Variant: return QString::fromStdString(r.variant);
    case Status:
      return r.id == m_pausedRun && r.status == store::RunStatus::Running ? tr("paused")
                                                                          : QString(store::to_string(r.status));
    case Parameters: return sort ? QVariant::fromValue<qint64>(r.n_params) : QVariant(widgets::formatCount(r.n_params));
    case BestVal:
    case LastVal: {
      const ValMetric m = valMetric(e);
      if (!m.s) return sort ? QVariant(qInf()) : QVariant();
      const double v = column == BestVal ? m.best() : m.s->last;
      return number(v, valText(v, m.accuracy));
    }
    case FinalTrainLoss: {
      const auto& s = summaryAt(e, kTrainLoss);
      if (!s) return sort ? QVariant(qInf()) : QVariant();
      return number(s->last, QString::number(s->last, 'f', 4));
    }
    case TokensSeen: {
      const std::int64_t t = m_tokens[static_cast<size_t>(row)];
      if (t < 0) return sort ? QVariant(-1.0) : QVariant();
      return number(static_cast<double>(t), widgets::formatCount(static_cast<double>(t)));
    }
    case Duration: {
      const double d = runSeconds(row);
      return number(d, formatDuration(d));
    }
    case Started: return sort ? QVariant::fromValue<qint64>(r.started_at) : QVariant(shortTime(r.started_at));
    case Created: return sort ? QVariant::fromValue<qint64>(r.created_at) : QVariant(longTime(r.created_at));
    case Kind: return QString(store::to_string(r.kind));
    case Device: return QString::fromStdString(r.device);
    case Seed: return r.seed < 0 ? (sort ? QVariant(-1.0) : QVariant()) : QVariant::fromValue<qint64>(r.seed);
    case Processes: return processesText(r.world_size, r.backend, sort);
    case Tags: return m_tags[static_cast<size_t>(row)].join(", ");
    // One line in the cell (the tooltip and the notes field have all of it).
    case Notes: return QString::fromStdString(r.notes).section('\n', 0, 0);
    case Precision: return precisionText(r.env_json);
  }
  return {};
}

QVariant RunsModel::toolTipOf(int row, int column) const {
  const store::RunListEntry& e = m_runs[static_cast<size_t>(row)];
  const store::RunInfo& r = e.run;
  switch (column) {
    case BestVal:
    case LastVal: {
      const ValMetric m = valMetric(e);
      if (!m.s) return tr("No validation metric recorded (val/loss or val/accuracy)");
      return tr("%1: best %2 at step %3, last %4 at step %5 (%6 evaluations)")
          .arg(QString::fromStdString(m.s->key), valText(m.best(), m.accuracy))
          .arg(m.s->best_step)
          .arg(valText(m.s->last, m.accuracy))
          .arg(m.s->last_step)
          .arg(m.s->count);
    }
    case TokensSeen: {
      const std::int64_t t = m_tokens[static_cast<size_t>(row)];
      return t < 0 ? QVariant() : QVariant(tr("%1 training tokens seen (at the last train/loss point)").arg(t));
    }
    case Tags:
      return m_tags[static_cast<size_t>(row)].isEmpty() ? tr("No tags: F2 or double-click to add some (comma-separated)")
                                                         : tr("Tags: %1 (F2 or double-click to edit)").arg(m_tags[static_cast<size_t>(row)].join(", "));
    case Notes:
      return r.notes.empty() ? tr("No notes: F2 or double-click to write one, or use the notes field below the table")
                             : QString::fromStdString(r.notes);
    case Started:
    case Created: return tr("created %1, started %2, ended %3")
          .arg(longTime(r.created_at), longTime(r.started_at), longTime(r.ended_at));
    case Precision: return provenanceText(r.env_json);
    default: break;
  }
  QString tip = tr("run %1 \"%2\" (%3), config %4").arg(r.id).arg(QString::fromStdString(r.name),
                                                            store::to_string(r.kind), QString::fromStdString(r.config_hash));
  if (!r.device.empty()) tip += tr(", %1").arg(QString::fromStdString(r.device));
  if (r.world_size > 1) tip += tr(", %1 processes (%2)").arg(r.world_size).arg(QString::fromStdString(r.backend));
  if (!r.error.empty()) tip += "\n" + QString::fromStdString(r.error);
  if (m_searchRole.contains(r.id)) tip += "\n" + tr("Measured by a search: %1").arg(m_searchRole.value(r.id));
  tip += "\n" + provenanceText(r.env_json);
  return tip;
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Id: return tr("Run id in the store (unique; runs of the same name differ by it)");
      case BestVal: return tr("Best validation metric: lowest val/loss (nats/token) of a text run, highest "
                              "val/accuracy of a task run");
      case LastVal: return tr("Last validation metric (val/loss or val/accuracy)");
      case FinalTrainLoss: return tr("Last train/loss (one batch, not smoothed)");
      case TokensSeen: return tr("Training tokens seen");
      case Duration: return tr("Training time: the run's own clock at its last training step (pauses, and the time "
                               "between an interruption and its resume, left out); start to end when it recorded no "
                               "step. Compare's Metrics shows it and the wall time (start to end: setup, the final "
                               "evaluation and checkpoint included); pha runs list prints it.");
      case Started: return tr("Start time: hours:minutes today, else the day (the tooltip has the full time)");
      case Processes: return tr("Data-parallel processes that trained the run (the store's world_size) and their "
                                "collective backend; 1: one process");
      case Tags: return tr("The run's tags (pha runs tag); filter by one with the tag box above the table");
      case Notes: return tr("The run's notes, first line (pha runs note)");
      case Seed: return tr("Training seed; runs of one group with several seeds are replicas, summarized in a "
                           "group row as mean \u00b1 std (n)");
      case Precision: return tr("The precision the run trained in (training.precision resolved: auto records what it "
                                "chose); the tooltip has everything that produced the run's numbers");
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Id: return tr("#");
    case Name: return tr("Run");
    case Variant: return tr("Variant");
    case Status: return tr("Status");
    case Parameters: return tr("Params");
    case BestVal: return tr("Best val");
    case LastVal: return tr("Last val");
    case FinalTrainLoss: return tr("Train loss");
    case TokensSeen: return tr("Tokens");
    case Duration: return tr("Train time");
    case Started: return tr("Started");
    case Created: return tr("Created");
    case Kind: return tr("Kind");
    case Device: return tr("Device");
    case Seed: return tr("Seed");
    case Processes: return tr("Processes");
    case Tags: return tr("Tags");
    case Notes: return tr("Notes");
    case Precision: return tr("Precision");
  }
  return {};
}

RunsFilterModel::RunsFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunsModel::SortRole);
  setDynamicSortFilter(false);
}

void RunsFilterModel::setFilterText(const QString& text) {
  m_text = text.trimmed();
  invalidateFilter();
}

void RunsFilterModel::setTagFilter(const QString& tag) {
  m_tag = tag;
  invalidateFilter();
}

void RunsFilterModel::setKindFilter(std::optional<store::RunKind> kind) {
  m_kind = kind;
  invalidateFilter();
}

bool RunsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  const auto* model = static_cast<const RunsModel*>(sourceModel());
  if (const RunsModel::GroupRow* g = model->group(sourceRow)) {
    for (int member : g->members)
      if (runMatches(member)) return true;
    return false;
  }
  return model->isRowExpandedIn(sourceRow) && runMatches(sourceRow);
}

bool RunsFilterModel::runMatches(int sourceRow) const {
  const auto* model = static_cast<const RunsModel*>(sourceModel());
  const auto* e = model->entry(sourceRow);
  if (!e) return false;
  if (m_kind && e->run.kind != *m_kind) return false;
  const QStringList tags = model->tagsOf(sourceRow);
  if (!m_tag.isEmpty() && !tags.contains(m_tag)) return false;
  if (m_text.isEmpty()) return true;
  if (QString::number(e->run.id) == m_text || "#" + QString::number(e->run.id) == m_text) return true;
  for (const std::string& field : {e->run.name, e->run.variant, std::string(store::to_string(e->run.status)), e->run.notes})
    if (QString::fromStdString(field).contains(m_text, Qt::CaseInsensitive)) return true;
  for (const QString& t : tags)
    if (t.contains(m_text, Qt::CaseInsensitive)) return true;
  return false;
}

}  // namespace pha::gui
