#include "gui/compare/metrics_tab.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QTableWidget>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/duration_format.h"
#include "core/metric_table.h"
#include "widgets/plot_export.h"

#include "widgets/csv_file.h"  // widgets::writeTextFile, the window's one file writer

namespace pha::gui {

namespace store = pha::store;

namespace {

// Vertical-header roles: the group a row belongs to, and whether the row is a group's header.
constexpr int kGroupRole = Qt::UserRole + 10;
constexpr int kIsGroupRole = Qt::UserRole + 11;
// Cell role: marked as the best of its row.
constexpr int kBestRole = Qt::UserRole + 12;

QString valueText(double v) { return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 6); }

int splitRank(const QString& key) {
  if (key.startsWith(QLatin1String("val/"))) return 0;
  if (key.startsWith(QLatin1String("test/"))) return 1;
  if (key.startsWith(QLatin1String("train/"))) return 2;
  return 3;
}

// Rows whose best is a quality or a cost a reader compares; the others (learning rate, branch
// norms) have no "better" value.
bool ranked(MetricGroup g) { return g == MetricGroup::Losses || g == MetricGroup::Accuracies || g == MetricGroup::Efficiency; }

// Keys with a "best" row: qualities only. The best step of a learning rate, a gradient norm, a
// memory or a speed means nothing (the lowest lr is the end of the schedule).
bool hasBestRow(MetricGroup g) { return g == MetricGroup::Losses || g == MetricGroup::Accuracies; }

// A value with its unit, by the key's name: bytes, tokens/s, seconds; the rest as numbers.
QString keyValueText(const QString& key, double v) {
  if (std::isnan(v)) return QStringLiteral("NaN");
  const QString name = key.section('/', -1);
  if (name.endsWith(QLatin1String("bytes"))) return widgets::formatBytes(v);
  if (name.contains(QLatin1String("tokens_per_s"))) return QObject::tr("%1 tokens/s").arg(widgets::formatCount(v));
  if (name.endsWith(QLatin1String("_s"))) return QObject::tr("%1 s").arg(QString::number(v, 'g', 4));
  return valueText(v);
}

// Text order with runs of digits compared as numbers ("l2" before "l10"); QCollator's numeric
// mode is not available on every platform backend.
bool naturalLess(const QString& a, const QString& b) {
  int i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      int ei = i, ej = j;
      while (ei < a.size() && a[ei].isDigit()) ++ei;
      while (ej < b.size() && b[ej].isDigit()) ++ej;
      const qulonglong x = a.mid(i, ei - i).toULongLong(), y = b.mid(j, ej - j).toULongLong();
      if (x != y) return x < y;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

MetricGroup metricGroup(const QString& key) {
  const QString k = key.toLower();
  if (k.startsWith(QLatin1String("branch_")) || k.startsWith(QLatin1String("mixer"))) return MetricGroup::Branches;
  // The kind is the metric table's (core/metric_table.h); a counted size is no row a run trains.
  const core::MetricInfo* m = core::find_metric(key.toStdString());
  if (!m) return MetricGroup::Other;
  switch (m->kind) {
    case core::MetricKind::Loss: return MetricGroup::Losses;
    case core::MetricKind::Accuracy: return MetricGroup::Accuracies;
    case core::MetricKind::Efficiency: return MetricGroup::Efficiency;
    case core::MetricKind::Optimizer: return MetricGroup::Optimizer;
    case core::MetricKind::Size: return MetricGroup::Other;
  }
  return MetricGroup::Other;
}

QString metricGroupTitle(MetricGroup group) {
  switch (group) {
    case MetricGroup::Losses: return QObject::tr("Losses");
    case MetricGroup::Accuracies: return QObject::tr("Accuracies");
    case MetricGroup::Efficiency: return QObject::tr("Efficiency");
    case MetricGroup::Optimizer: return QObject::tr("Optimizer");
    case MetricGroup::Branches: return QObject::tr("Branch statistics");
    case MetricGroup::Other: return QObject::tr("Other");
  }
  return {};
}

QStringList orderedMetricKeys(QStringList keys) {
  std::stable_sort(keys.begin(), keys.end(), [&](const QString& a, const QString& b) {
    const auto ga = static_cast<int>(metricGroup(a)), gb = static_cast<int>(metricGroup(b));
    if (ga != gb) return ga < gb;
    if (splitRank(a) != splitRank(b)) return splitRank(a) < splitRank(b);
    return naturalLess(a, b);
  });
  return keys;
}

MetricsTab::MetricsTab(QWidget* parent) : QWidget(parent) {
  m_folded = {metricGroupTitle(MetricGroup::Branches)};
  auto* layout = new QVBoxLayout(this);
  m_filter = new QLineEdit(this);
  m_filter->setObjectName("compareMetricsFilter");
  m_filter->setPlaceholderText(tr("Filter rows (e.g. val/, loss, acc)"));
  m_filter->setClearButtonEnabled(true);
  m_filter->setToolTip(tr("Shows the rows whose name contains this text (folded groups open while filtering)"));
  layout->addWidget(m_filter);
  m_table = new QTableWidget(this);
  m_table->setObjectName("compareMetricsTable");
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);  // runs side by side, equal
  m_table->verticalHeader()->setSectionsClickable(true);
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);  // compact: more rows in view
  layout->addWidget(m_table, 1);
  auto* bottom = new QHBoxLayout;
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  bottom->addWidget(m_message, 1);
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export CSV…"));
  exportButton->setToolTip(tr("Every row at full precision, folded or filtered rows included"));
  connect(exportButton, &QToolButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export metrics table"), "compare-metrics.csv",
                                                tr("CSV data (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!writeCsv(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  });
  bottom->addWidget(exportButton);
  layout->addLayout(bottom);
  connect(m_filter, &QLineEdit::textChanged, this, [this] { applyVisibility(); });
  connect(m_table->verticalHeader(), &QHeaderView::sectionClicked, this, [this](int row) {
    const QTableWidgetItem* h = m_table->verticalHeaderItem(row);
    if (h && h->data(kIsGroupRole).toBool()) setGroupFolded(h->data(kGroupRole).toString(), !m_folded.contains(h->data(kGroupRole).toString()));
  });
  setRuns(nullptr);
}

void MetricsTab::addGroup(const QString& title) {
  const int r = m_table->rowCount();
  m_table->insertRow(r);
  auto* header = new QTableWidgetItem(title);
  header->setData(kGroupRole, title);
  header->setData(kIsGroupRole, true);
  QFont bold = header->font();
  bold.setBold(true);
  header->setFont(bold);
  m_table->setVerticalHeaderItem(r, header);
  auto* band = new QTableWidgetItem;
  band->setFlags(Qt::ItemIsEnabled);
  band->setBackground(palette().alternateBase());
  m_table->setItem(r, 0, band);
  if (m_table->columnCount() > 1) m_table->setSpan(r, 0, 1, m_table->columnCount());
}

void MetricsTab::addRow(const QString& name, const std::vector<Cell>& cells) {
  const int r = m_table->rowCount();
  m_table->insertRow(r);
  auto* header = new QTableWidgetItem(name);
  // The group of the nearest header row above.
  for (int up = r - 1; up >= 0; --up)
    if (m_table->verticalHeaderItem(up)->data(kIsGroupRole).toBool()) {
      header->setData(kGroupRole, m_table->verticalHeaderItem(up)->data(kGroupRole));
      break;
    }
  m_table->setVerticalHeaderItem(r, header);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c].text);
    if (cells[c].value.isValid()) {
      item->setData(Qt::UserRole, cells[c].value);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (!cells[c].tip.isEmpty()) item->setToolTip(cells[c].tip);
    m_table->setItem(r, static_cast<int>(c), item);
  }
}

// Bold on a green tint for the best value(s) of a row, when at least two runs have one and
// they are not all equal.
void MetricsTab::markBest(int row, bool higherIsBetter) {
  std::vector<std::pair<int, double>> values;
  for (int c = 0; c < m_table->columnCount(); ++c) {
    const QTableWidgetItem* item = m_table->item(row, c);
    const QVariant v = item ? item->data(Qt::UserRole) : QVariant();
    if (v.isValid() && std::isfinite(v.toDouble())) values.emplace_back(c, v.toDouble());
  }
  if (values.size() < 2) return;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (lo->second == hi->second) return;
  const double best = higherIsBetter ? hi->second : lo->second;
  for (const auto& [c, v] : values) {
    if (v != best) continue;
    QTableWidgetItem* item = m_table->item(row, c);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
    item->setBackground(QColor(0, 158, 115, 55));
    item->setData(kBestRole, true);
    const QString tip = higherIsBetter ? tr("Best of the compared runs (higher is better; a group by its mean)")
                                       : tr("Best of the compared runs (lower is better; a group by its mean)");
    item->setToolTip(item->toolTip().isEmpty() ? tip : tip + "\n" + item->toolTip());
  }
}

namespace {

// A group's cell: mean ± std (n) of value(replica), each replica's value in the tooltip.
template <typename Value>
std::tuple<QString, QVariant, QString> groupCell(const LoadedRuns& list, const CompareUnit& u, Value value,
                                                 const QString& key) {
  const analysis::Stats st = unitStats(list, u, value);
  QStringList tips;
  for (std::size_t i : u.members) {
    const LoadedRun& r = list[i];
    tips << QObject::tr("seed %1 (run %2): %3").arg(r.info.seed).arg(r.info.id).arg(keyValueText(key, value(r)));
  }
  const bool plain = keyValueText(key, 1.0) == valueText(1.0);  // no unit: the mean ± std text as it is
  const QString text = plain || st.n == 0 ? meanStdText(st)
                                          : QObject::tr("%1 ± %2 (%3)").arg(keyValueText(key, st.mean),
                                                                            keyValueText(key, st.std)).arg(st.n);
  return {text, st.n ? QVariant(st.mean) : QVariant(), tips.join('\n')};
}

}  // namespace

// One pass that fills the table row by row (groups, best marks, folds);
// its helpers above hold the per-cell rules.
void MetricsTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_table->clear();
  m_table->clearSpans();
  m_table->setRowCount(0);
  const LoadedRuns empty;
  const LoadedRuns& list = runs ? *runs : empty;
  const std::vector<CompareUnit> units = compareUnits(list);
  // Column headers are read whole: "pha-tiny/lr=0.003" is written on two lines, the family over
  // its setting, and no column is narrower than either line (the table scrolls sideways instead;
  // "transfor…/lr=0.003" hid which model a column was). Only a line over 260 px is cut.
  const QFontMetrics fm(m_table->horizontalHeader()->font());
  int columnWidth = 60;
  for (const auto& u : units) {
    const int slash = u.label.lastIndexOf('/');
    const int widest = slash > 0 ? std::max(fm.horizontalAdvance(u.label.left(slash + 1)), fm.horizontalAdvance(u.label.mid(slash + 1)))
                                 : fm.horizontalAdvance(u.label);
    columnWidth = std::max(columnWidth, std::min(widest, 260) + 18);
  }
  QStringList labels;
  for (const auto& u : units) {
    const int slash = u.label.lastIndexOf('/');
    labels << (slash > 0 && slash + 1 < u.label.size()
                   ? fm.elidedText(u.label.left(slash + 1), Qt::ElideRight, columnWidth - 14) + "\n" + u.label.mid(slash + 1)
                   : fm.elidedText(u.label, Qt::ElideRight, columnWidth - 14));
  }
  m_table->setColumnCount(labels.size());
  m_table->setHorizontalHeaderLabels(labels);
  m_table->horizontalHeader()->setMinimumSectionSize(columnWidth);
  m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  for (int c = 0; c < static_cast<int>(units.size()); ++c)
    m_table->horizontalHeaderItem(c)->setToolTip(units[static_cast<std::size_t>(c)].label);
  if (list.empty()) {
    m_message->setText(tr("No runs to compare: select two or more saved runs in the run table and press Compare selected."));
    return;
  }
  // A facts row: the first replica's value (replicas share project, variant, model and device).
  auto fieldRow = [&](const QString& name, auto text) {
    std::vector<Cell> cells;
    for (const auto& u : units) {
      const LoadedRun& r = list[u.members.front()];
      cells.push_back(r.ok() ? text(r) : Cell{r.error, {}, {}});
    }
    addRow(name, cells);
  };
  addGroup(tr("Run"));
  fieldRow(tr("project"), [](const LoadedRun& r) { return Cell{QString::fromStdString(r.info.project), {}, {}}; });
  fieldRow(tr("variant"), [](const LoadedRun& r) { return Cell{QString::fromStdString(r.info.variant), {}, {}}; });
  std::vector<Cell> status, seeds, training, wall;
  // The run table's "Train time" and the wall time, one rule for both (store/run_times.h).
  const QString trainingTip = QString::fromUtf8(store::kTrainingTimeMeaning);
  const QString wallTip = QString::fromUtf8(store::kWallTimeMeaning);
  auto timeCells = [&](const CompareUnit& u, const LoadedRun& r, double (*of)(const LoadedRun&), const QString& tip) {
    const analysis::Stats d = unitStats(list, u, [of](const LoadedRun& x) {
      const double v = of(x);
      return v >= 0 ? v : std::nan("");
    });
    if (r.info.started_at <= 0) return Cell{tr("not started"), {}, tip};
    if (!u.grouped || d.n < 2) {
      const double v = of(r);
      return Cell{QString::fromStdString(core::format_duration(v)) + (r.info.ended_at <= 0 ? tr(" (running)") : QString()),
                  qint64(std::llround(v * 1000.0)), tip};
    }
    return Cell{tr("%1 ± %2 (%3)")
                    .arg(QString::fromStdString(core::format_duration(d.mean)), QString::fromStdString(core::format_duration(d.std)))
                    .arg(d.n),
                qint64(std::llround(d.mean * 1000.0)), tip};
  };
  for (const auto& u : units) {
    const LoadedRun& r = list[u.members.front()];
    QStringList seedList;
    for (std::size_t i : u.members) seedList << (list[i].info.seed >= 0 ? QString::number(list[i].info.seed) : "—");
    QString text = QString::fromUtf8(store::to_string(r.info.status));
    if (!r.info.error.empty()) text += ": " + QString::fromStdString(r.info.error);
    if (u.grouped) text = tr("%1 replicas, %2").arg(u.members.size()).arg(text);
    status.push_back(r.ok() ? Cell{text, {}, {}} : Cell{r.error, {}, {}});
    seeds.push_back(Cell{seedList.join(", "), {}, {}});
    training.push_back(timeCells(u, r, [](const LoadedRun& x) { return x.times.training_s; }, trainingTip));
    wall.push_back(timeCells(u, r, [](const LoadedRun& x) { return x.times.wall_s; }, wallTip));
  }
  addRow(tr("status"), status);
  addRow(tr("seed"), seeds);
  fieldRow(tr("parameters"), [](const LoadedRun& r) {
    return r.info.n_params > 0 ? Cell{widgets::formatCount(double(r.info.n_params)), qint64(r.info.n_params), {}}
                               : Cell{tr("not recorded"), {}, {}};
  });
  fieldRow(tr("device"), [](const LoadedRun& r) { return Cell{QString::fromStdString(r.info.device), {}, {}}; });
  addRow(tr("training time"), training);
  addRow(tr("wall time"), wall);
  addMetricRows(list, units);
  m_message->setText(tr("Final: the value at the last recorded step. Best: the lowest (loss-like) or highest "
                        "(accuracy-like) value recorded, as the run store ranks the key. A group of seeded replicas "
                        "has one column: mean ± sample std (n) over its replicas (the newest finished run of each "
                        "seed, as pha runs list and pha report count them; hover for each replica). Bold on green: "
                        "the best run of a row (a group by its mean; losses, accuracies, and speeds by their median over the "
                        "steady state when every run has 5 or more points; memory is not ranked). Click a "
                        "group's name to fold or unfold it."));
  applyVisibility();
}

// Per metric key, in table order: its final and best rows.
void MetricsTab::addMetricRows(const LoadedRuns& list, const std::vector<CompareUnit>& units) {
  const QStringList keys = orderedMetricKeys(unionOfKeys(list));
  int group = -1;
  for (const QString& key : keys) {
    const MetricGroup g = metricGroup(key);
    if (static_cast<int>(g) != group) {
      group = static_cast<int>(g);
      addGroup(metricGroupTitle(g));
    }
    const std::string k = key.toStdString();
    bool higher = false;
    for (const auto& r : list)
      if (auto it = r.best.find(k); it != r.best.end()) higher = it->second.higherIsBetter;
    auto finalOf = [&k](const LoadedRun& r) {
      auto it = r.summaries.find(k);
      return it == r.summaries.end() ? std::nan("") : it->second.last;
    };
    auto bestOf = [&k](const LoadedRun& r) {
      auto it = r.best.find(k);
      return it == r.best.end() ? std::nan("") : it->second.value;
    };
    // Speeds: the median over the steady state, not the last step's value; ranked only when
    // every column has at least kSteadyPoints of them. Memory: the process's peak resident
    // memory, shown, never ranked (a run trained in the window shares the window's process).
    const bool speed = g == MetricGroup::Efficiency && key.contains(QLatin1String("tokens_per_s"));
    const bool memory = g == MetricGroup::Efficiency && !speed;
    if (speed) {
      addSteadyRow(list, units, key);
      continue;
    }
    for (const bool best : {false, true}) {
      if (best && !hasBestRow(g)) continue;
      const auto text = [&key](double v) { return keyValueText(key, v); };
      std::vector<Cell> cells;
      for (const auto& u : units) {
        const LoadedRun& r = list[u.members.front()];
        if (!r.ok()) {
          cells.push_back(Cell{r.error, {}, {}});
        } else if (u.grouped) {
          auto [cellText, value, tip] = best ? groupCell(list, u, bestOf, key) : groupCell(list, u, finalOf, key);
          cells.push_back(Cell{cellText, value, tip});
        } else if (!best) {
          auto it = r.summaries.find(k);
          cells.push_back(it == r.summaries.end() ? Cell{"—", {}, {}}
                                                  : Cell{tr("%1 (step %2)").arg(text(it->second.last)).arg(it->second.last_step),
                                                         it->second.last, valueText(it->second.last)});
        } else {
          auto it = r.best.find(k);
          cells.push_back(it == r.best.end() ? Cell{"—", {}, {}}
                                             : Cell{tr("%1 (step %2)").arg(text(it->second.value)).arg(it->second.step),
                                                    it->second.value, valueText(it->second.value)});
        }
      }
      if (memory)
        for (Cell& c : cells)
          c.tip = tr("Peak resident memory of the process that trained the run, measured; not ranked: a run "
                     "trained in the window shares the window's process (and what earlier runs left in it).") +
                  (c.tip.isEmpty() ? QString() : "\n" + c.tip);
      addRow(best ? tr("%1 best").arg(key) : tr("%1 final").arg(key), cells);
      if (ranked(g) && !memory) markBest(m_table->rowCount() - 1, higher);
    }
  }
}

// A speed row: each column's median over the steady state (LoadedRun::steady), its point count
// and first step in the tooltip; the best marked only when every column has kSteadyPoints.
void MetricsTab::addSteadyRow(const LoadedRuns& list, const std::vector<CompareUnit>& units, const QString& key) {
  constexpr std::int64_t kSteadyPoints = 5;
  const std::string k = key.toStdString();
  auto steadyOf = [&k](const LoadedRun& r) {
    auto it = r.steady.find(k);
    return it == r.steady.end() ? std::nan("") : it->second.median;
  };
  std::vector<Cell> cells;
  bool enough = true;
  for (const auto& u : units) {
    const LoadedRun& r = list[u.members.front()];
    for (std::size_t i : u.members) {
      auto it = list[i].steady.find(k);
      enough = enough && it != list[i].steady.end() && it->second.points >= kSteadyPoints;
    }
    if (!r.ok()) {
      cells.push_back(Cell{r.error, {}, {}});
    } else if (u.grouped) {
      auto [cellText, value, tip] = groupCell(list, u, steadyOf, key);
      cells.push_back(Cell{cellText, value, tip});
    } else if (auto it = r.steady.find(k); it != r.steady.end()) {
      cells.push_back(Cell{keyValueText(key, it->second.median), it->second.median,
                           tr("median of %1 points from step %2 on (the steady state: the first fifth of the "
                              "steps left out)").arg(it->second.points).arg(it->second.fromStep)});
    } else {
      cells.push_back(Cell{"—", {}, {}});
    }
  }
  addRow(tr("%1 median").arg(key), cells);
  if (enough) markBest(m_table->rowCount() - 1, /*higherIsBetter=*/true);
}

void MetricsTab::setFilter(const QString& text) { m_filter->setText(text); }

void MetricsTab::setGroupFolded(const QString& title, bool folded) {
  if (folded) m_folded.insert(title);
  else m_folded.remove(title);
  applyVisibility();
}

void MetricsTab::applyVisibility() {
  const QString filter = m_filter->text().trimmed();
  int header = -1, shownInGroup = 0;
  auto closeGroup = [&] {
    if (header < 0) return;
    QTableWidgetItem* h = m_table->verticalHeaderItem(header);
    const QString title = h->data(kGroupRole).toString();
    const bool folded = filter.isEmpty() && m_folded.contains(title);
    m_table->setRowHidden(header, !filter.isEmpty() && shownInGroup == 0);
    h->setText(folded ? tr("%1 (folded: click to show)").arg(title) : title);
  };
  for (int r = 0; r < m_table->rowCount(); ++r) {
    QTableWidgetItem* h = m_table->verticalHeaderItem(r);
    if (h->data(kIsGroupRole).toBool()) {
      closeGroup();
      header = r;
      shownInGroup = 0;
      continue;
    }
    const bool match = filter.isEmpty() || h->text().contains(filter, Qt::CaseInsensitive);
    const bool folded = filter.isEmpty() && m_folded.contains(h->data(kGroupRole).toString());
    m_table->setRowHidden(r, !match || folded);
    shownInGroup += match ? 1 : 0;
  }
  closeGroup();
}

int MetricsTab::rowOf(const QString& name) const {
  for (int r = 0; r < m_table->rowCount(); ++r) {
    const QTableWidgetItem* h = m_table->verticalHeaderItem(r);
    if (!h->data(kIsGroupRole).toBool() && h->text() == name) return r;
  }
  return -1;
}

QStringList MetricsTab::rowNames() const {
  QStringList names;
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (!m_table->verticalHeaderItem(r)->data(kIsGroupRole).toBool()) names << m_table->verticalHeaderItem(r)->text();
  return names;
}

QStringList MetricsTab::groupTitles() const {
  QStringList titles;
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (m_table->verticalHeaderItem(r)->data(kIsGroupRole).toBool()) titles << m_table->verticalHeaderItem(r)->data(kGroupRole).toString();
  return titles;
}

QStringList MetricsTab::visibleRowNames() const {
  QStringList names;
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (!m_table->verticalHeaderItem(r)->data(kIsGroupRole).toBool() && !m_table->isRowHidden(r))
      names << m_table->verticalHeaderItem(r)->text();
  return names;
}

QString MetricsTab::cellText(const QString& row, int run) const {
  const int r = rowOf(row);
  const QTableWidgetItem* item = r >= 0 ? m_table->item(r, run) : nullptr;
  return item ? item->text() : QString();
}

QVariant MetricsTab::cellValue(const QString& row, int run) const {
  const int r = rowOf(row);
  const QTableWidgetItem* item = r >= 0 ? m_table->item(r, run) : nullptr;
  return item ? item->data(Qt::UserRole) : QVariant();
}

bool MetricsTab::isBest(const QString& row, int run) const {
  const int r = rowOf(row);
  const QTableWidgetItem* item = r >= 0 ? m_table->item(r, run) : nullptr;
  return item && item->data(kBestRole).toBool();
}

bool MetricsTab::writeCsv(const QString& path, QString* error) const {
  QString text;
  QTextStream out(&text);
  out << "field";
  for (int c = 0; c < m_table->columnCount(); ++c) {
    const QTableWidgetItem* h = m_table->horizontalHeaderItem(c);
    out << ',' << widgets::csvField(h->toolTip().isEmpty() ? h->text() : h->toolTip());  // the whole run label
  }
  out << '\n';
  for (int r = 0; r < m_table->rowCount(); ++r) {
    if (m_table->verticalHeaderItem(r)->data(kIsGroupRole).toBool()) continue;  // headers are not data
    out << widgets::csvField(m_table->verticalHeaderItem(r)->text());
    for (int c = 0; c < m_table->columnCount(); ++c) {
      const QTableWidgetItem* item = m_table->item(r, c);
      const QVariant v = item ? item->data(Qt::UserRole) : QVariant();
      out << ',' << widgets::csvField(v.isValid() ? QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest) : (item ? item->text() : QString()));
    }
    out << '\n';
  }
  out.flush();
  return widgets::writeTextFile(path, text, error);
}

}  // namespace pha::gui
