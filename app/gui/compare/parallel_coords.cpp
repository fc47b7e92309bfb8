#include "gui/compare/parallel_coords.h"

#include <QObject>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "gui/compare/config_diff.h"

namespace pha::gui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString numberText(double v) { return QString::number(v, 'g', 4); }
// A category's label: strings without quotes, everything else as JSON (a layer pattern whole).
QString valueText(const std::optional<nlohmann::json>& v) {
  if (!v) return QObject::tr("(absent)");
  if (v->is_string()) return QString::fromStdString(v->get<std::string>());
  return QString::fromStdString(v->dump());
}

bool allNumbers(const std::vector<std::optional<nlohmann::json>>& values) {
  return std::all_of(values.begin(), values.end(), [](const auto& v) { return v && v->is_number(); });
}

ParallelAxis numericAxis(const QString& key, std::vector<double> values, std::vector<QString> texts) {
  ParallelAxis axis;
  axis.key = key;
  axis.scale = numericScale(values);
  axis.texts = std::move(texts);
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    axis.low = any ? std::min(axis.low, v) : v;
    axis.high = any ? std::max(axis.high, v) : v;
    any = true;
  }
  axis.values = std::move(values);
  return axis;
}

ParallelAxis categoricalAxis(const QString& key, const std::vector<std::optional<nlohmann::json>>& values) {
  ParallelAxis axis;
  axis.key = key;
  axis.scale = AxisScale::Categorical;
  // Categories in order: numbers by value, then the rest by text, "(absent)" last.
  std::vector<std::pair<std::optional<nlohmann::json>, QString>> distinct;
  for (const auto& v : values) {
    const QString text = valueText(v);
    if (std::none_of(distinct.begin(), distinct.end(), [&](const auto& d) { return d.second == text; }))
      distinct.emplace_back(v, text);
  }
  auto rank = [](const std::optional<nlohmann::json>& v) { return !v ? 2 : v->is_number() ? 0 : 1; };
  std::stable_sort(distinct.begin(), distinct.end(), [&](const auto& a, const auto& b) {
    if (rank(a.first) != rank(b.first)) return rank(a.first) < rank(b.first);
    if (rank(a.first) == 0) return a.first->template get<double>() < b.first->template get<double>();
    return a.second < b.second;
  });
  for (const auto& d : distinct) axis.categories << d.second;
  for (const auto& v : values) {
    const QString text = valueText(v);
    axis.values.push_back(double(axis.categories.indexOf(text)));
    axis.texts.push_back(text);
  }
  axis.low = 0;
  axis.high = std::max(0, int(axis.categories.size()) - 1);
  return axis;
}

}  // namespace

double finalMetricValue(const LoadedRun& run, const std::string& key) {
  auto it = run.summaries.find(key);
  return it == run.summaries.end() ? kNaN : it->second.last;
}

QString defaultParallelMetric(const QStringList& keys) {
  for (const char* k : {"val/bpb", "val/loss", "val/accuracy"})
    if (keys.contains(QLatin1String(k))) return QLatin1String(k);
  return keys.isEmpty() ? QString() : keys.front();
}

// The empty states, the diff's rows and the metric axis in one pass.
ParallelData buildParallelData(const LoadedRuns& runs, const QString& metricKey, bool mergeTogether) {
  ParallelData data;
  std::vector<const LoadedRun*> used;
  QStringList skipped;
  for (const auto& r : runs) {
    if (!r.ok()) skipped << QObject::tr("%1 (%2)").arg(r.label, r.error);
    else if (!r.config.is_object()) skipped << QObject::tr("%1 (config not JSON)").arg(r.label);
    else used.push_back(&r);
  }
  if (!skipped.isEmpty()) data.skipped = QObject::tr("Not drawn: %1.").arg(skipped.join(QStringLiteral("; ")));
  const QString differ = QObject::tr("Compare two or more runs that differ in a setting (select them in the run table "
                                     "and press Compare selected): each setting that differs becomes an axis.");
  if (used.size() < 2) {
    data.emptyMessage = used.empty() ? QObject::tr("No runs to draw. %1").arg(differ)
                                     : QObject::tr("One run to draw. %1").arg(differ);
    return data;
  }
  std::vector<nlohmann::json> configs;
  for (const LoadedRun* r : used) {
    configs.push_back(r->config);
    data.refs << r->ref;
    data.labels << r->label;
  }
  for (const DiffRow& row : diffConfigs(configs)) {
    if (row.path == "run") continue;  // the run's name: it labels the line
    const QString key = QString::fromStdString(row.path);
    if (allNumbers(row.values)) {
      std::vector<double> v;
      std::vector<QString> t;
      for (const auto& x : row.values) {
        v.push_back(x->get<double>());
        t.push_back(valueText(x));
      }
      data.axes.push_back(numericAxis(key, std::move(v), std::move(t)));
    } else {
      data.axes.push_back(categoricalAxis(key, row.values));
    }
  }
  if (mergeTogether) mergeAxesThatChangeTogether(data.axes);
  if (data.axes.empty()) {
    data.emptyMessage = QObject::tr("These %1 runs have the same settings (the Config diff tab lists none that differ). %2")
                            .arg(used.size())
                            .arg(differ);
    return data;
  }
  const std::string mk = metricKey.toStdString();
  std::vector<double> v;
  std::vector<QString> t;
  bool any = false;
  for (const LoadedRun* r : used) {
    v.push_back(finalMetricValue(*r, mk));
    auto it = r->summaries.find(mk);
    t.push_back(it == r->summaries.end() ? QObject::tr("not recorded")
                                         : QObject::tr("%1 (final, step %2)").arg(numberText(it->second.last)).arg(it->second.last_step));
    any = any || std::isfinite(v.back());
  }
  if (!mk.empty() && any) {
    ParallelAxis axis = numericAxis(metricKey, std::move(v), std::move(t));
    axis.metric = true;
    data.metricKey = metricKey;
    data.goal = core::metric_goal(mk);
    axis.note = data.goal == core::MetricGoal::Minimize   ? QObject::tr("lower is better")
                : data.goal == core::MetricGoal::Maximize ? QObject::tr("higher is better")
                                                    : QObject::tr("no better end");
    data.axes.push_back(std::move(axis));
  }
  return data;
}

void mergeAxesThatChangeTogether(std::vector<ParallelAxis>& axes) {
  // The partition an axis makes: per run, the first run with the same value (NaN: its own).
  auto partition = [](const ParallelAxis& a) {
    std::vector<std::size_t> first(a.values.size());
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      first[i] = i;
      for (std::size_t j = 0; j < i; ++j)
        if (a.values[j] == a.values[i]) {
          first[i] = j;
          break;
        }
    }
    return first;
  };
  auto preferred = [](const QString& key) {
    return key.section('.', -1) == QLatin1String("name") || key.section('.', -1) == QLatin1String("variant");
  };
  std::vector<ParallelAxis> kept;
  std::vector<std::vector<std::size_t>> parts;
  for (ParallelAxis& a : axes) {
    const auto part = a.metric ? std::vector<std::size_t>{} : partition(a);  // the metric is never merged
    auto same = a.metric ? parts.end() : std::find(parts.begin(), parts.end(), part);
    if (same == parts.end()) {
      kept.push_back(std::move(a));
      parts.push_back(part);
      continue;
    }
    ParallelAxis& leader = kept[static_cast<std::size_t>(same - parts.begin())];
    if (preferred(a.key) && !preferred(leader.key)) {  // a name says more than its first setting
      std::swap(leader.key, a.key);
      std::swap(leader.texts, a.texts);
      std::swap(leader.values, a.values);
      std::swap(leader.categories, a.categories);
      std::swap(leader.scale, a.scale);
      std::swap(leader.low, a.low);
      std::swap(leader.high, a.high);
    }
    // Followers in path order (the leader's swap above may have put its first key last).
    const auto at = std::lower_bound(leader.followers.begin(), leader.followers.end(), a.key) - leader.followers.begin();
    leader.followers.insert(at, a.key);
    leader.followerTexts.insert(leader.followerTexts.begin() + at, std::move(a.texts));
  }
  axes = std::move(kept);
}

}  // namespace pha::gui
