#include "runs_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <cmath>

#include "number_format.h"
#include "store/store.h"

namespace pha::gui {

namespace {
const std::optional<store::MetricSummary>& summaryAt(const store::RunListEntry& e, size_t i) {
  static const std::optional<store::MetricSummary> none;
  return i < e.summaries.size() ? e.summaries[i] : none;
}

double durationSeconds(const store::RunInfo& r) {
  if (r.started_at <= 0) return -1;
  const qint64 end = r.ended_at > 0 ? r.ended_at : (r.heartbeat_at > 0 ? r.heartbeat_at : r.started_at);
  return (end - r.started_at) / 1000.0;
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
QString formatDuration(double s) {
  if (s < 0) return QString();
  if (s < 60) return QString::number(s, 'f', 1) + " s";
  const int total = static_cast<int>(std::lround(s));
  if (total < 3600) return QString("%1 m %2 s").arg(total / 60).arg(total % 60);
  return QString("%1 h %2 m").arg(total / 3600).arg((total % 3600) / 60);
}
}  // namespace

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

std::vector<std::string> RunsModel::summaryKeys() { return {"val/loss", "train/loss"}; }

void RunsModel::setRuns(std::vector<store::RunListEntry> runs, const QString& storePath) {
  beginResetModel();
  m_runs = std::move(runs);
  m_storePath = storePath;
  endResetModel();
}

bool RunsModel::reload(const QString& storePath) {
  try {
    auto s = store::Store::open(storePath.toStdString());
    store::RunListQuery q;
    q.summary_keys = summaryKeys();
    setRuns(s.list_runs(q), storePath);
    m_error.clear();
    return true;
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    return false;
  }
}

const store::RunListEntry* RunsModel::entry(int row) const {
  return row >= 0 && row < static_cast<int>(m_runs.size()) ? &m_runs[static_cast<size_t>(row)] : nullptr;
}

int RunsModel::rowOfRun(qint64 runId) const {
  for (size_t i = 0; i < m_runs.size(); ++i)
    if (m_runs[i].run.id == runId) return static_cast<int>(i);
  return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  const auto* e = entry(index.row());
  if (!e) return {};
  const store::RunInfo& r = e->run;
  if (role == RunIdRole) return QVariant::fromValue<qint64>(r.id);
  if (role == Qt::ForegroundRole && index.column() == Status) return QBrush(statusColor(r.status));
  if (role == Qt::ToolTipRole && !r.error.empty()) return QString::fromStdString(r.error);
  const bool sort = role == SortRole;
  if (role != Qt::DisplayRole && !sort) return {};
  switch (index.column()) {
    case Status: return QString(store::to_string(r.status));
    case Name: return QString::fromStdString(r.name);
    case Variant: return QString::fromStdString(r.variant);
    case Parameters: return sort ? QVariant::fromValue<qint64>(r.n_params) : QVariant(widgets::formatCount(r.n_params));
    case BestValLoss:
    case FinalTrainLoss: {
      const auto& s = summaryAt(*e, index.column() == BestValLoss ? 0 : 1);
      if (!s) return sort ? QVariant(qInf()) : QVariant();
      const double v = index.column() == BestValLoss ? s->min : s->last;
      return sort ? QVariant(v) : QVariant(QString::number(v, 'f', 4));
    }
    case Duration: {
      const double d = durationSeconds(r);
      return sort ? QVariant(d) : QVariant(formatDuration(d));
    }
    case Created:
      return sort ? QVariant::fromValue<qint64>(r.created_at)
                  : QVariant(QDateTime::fromMSecsSinceEpoch(r.created_at).toString("yyyy-MM-dd hh:mm"));
  }
  return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Status: return tr("Status");
    case Name: return tr("Run");
    case Variant: return tr("Variant");
    case Parameters: return tr("Params");
    case BestValLoss: return tr("Best val loss");
    case FinalTrainLoss: return tr("Train loss");
    case Duration: return tr("Duration");
    case Created: return tr("Created");
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

bool RunsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  if (m_text.isEmpty()) return true;
  const auto* model = static_cast<const RunsModel*>(sourceModel());
  const auto* e = model->entry(sourceRow);
  if (!e) return false;
  for (const std::string& field : {e->run.name, e->run.variant, std::string(store::to_string(e->run.status))})
    if (QString::fromStdString(field).contains(m_text, Qt::CaseInsensitive)) return true;
  return false;
}

}  // namespace pha::gui
