#include "gui/compare/compare_data.h"

#include "widgets/window_store.h"

#include <QFileInfo>
#include <algorithm>

#include "core/metric_table.h"
#include "runtime/profile_store.h"
#include "widgets/series_colors.h"
#include <QHash>
#include <cmath>
#include <QObject>
#include <exception>
#include <iterator>

namespace pha::gui {

namespace store = pha::store;

StoreCache::StoreCache() = default;
StoreCache::~StoreCache() = default;

store::Store* StoreCache::store(const QString& path, QString* error) {
  auto it = m_stores.find(path);
  if (it != m_stores.end()) return it->second.get();
  // Store::open would create a missing file; a compare view must not.
  if (!QFileInfo(path).isFile()) {
    if (error) *error = QObject::tr("Run store not found: %1").arg(path);
    return nullptr;
  }
  try {
    store::OpenOptions options = widgets::windowReadOptions();
    options.recover_interrupted = false;
    auto opened = std::make_unique<store::Store>(store::Store::open(path.toStdString(), options));
    return m_stores.emplace(path, std::move(opened)).first->second.get();
  } catch (const std::exception& e) {
    if (error) *error = QObject::tr("Cannot open run store %1: %2").arg(path, QString::fromUtf8(e.what()));
    return nullptr;
  }
}

std::optional<BestValue> bestValue(const store::MetricSummary& summary,
                                   const std::vector<store::MetricBucket>& buckets,
                                   const std::string& key) {
  if (summary.best_step < 0 || std::isnan(summary.min)) return std::nullopt;
  if (summary.min == summary.max) return BestValue{summary.min, summary.best_step, core::higher_is_better(key)};
  for (const auto& b : buckets) {
    if (summary.best_step < b.step_first || summary.best_step > b.step_last) continue;
    const bool holdsMin = b.min == summary.min;
    const bool holdsMax = b.max == summary.max;
    if (holdsMin && !holdsMax) return BestValue{summary.min, summary.best_step, false};
    if (holdsMax && !holdsMin) return BestValue{summary.max, summary.best_step, true};
    break;
  }
  // Both extremes in the bucket of best_step: decide by the metric table (core/metric_table.h).
  const bool higher = core::higher_is_better(key);
  return BestValue{higher ? summary.max : summary.min, summary.best_step, higher};
}

namespace {

void readMetrics(store::Store& s, LoadedRun& run) {
  run.keys = s.metric_keys(run.ref.runId);
  for (const auto& key : run.keys) {
    auto summary = s.summary(run.ref.runId, key);
    if (!summary) continue;
    run.summaries[key] = *summary;
    // 512 step buckets: a run shorter than that has one step per bucket, so the test is exact.
    if (auto best = bestValue(*summary, s.read_metric(run.ref.runId, key, 512), key)) run.best[key] = *best;
  }
}

// The Pareto chart's measured costs of a training run: its model's efficiency profile (when the
// store has one) and the median of its own tokens/s points.
void readCosts(store::Store& s, LoadedRun& run) {
  if (run.info.kind != store::RunKind::Train) return;
  if (run.config.is_object() && run.config.contains("model")) {
    const runtime::ModelProfile p = runtime::profile_of_model(s, run.config["model"]);
    run.profileRunId = p.run_id;
    run.profile = p.rows;
  }
  for (const std::string& key : run.keys) {
    if (key.find("tokens_per_s") == std::string::npos) continue;
    const auto points = s.read_metric_full(run.ref.runId, key);
    if (points.empty()) continue;
    const std::int64_t from = points.front().step + (points.back().step - points.front().step) / 5;
    std::vector<double> v;
    for (const auto& p : points)
      if (p.step >= from && std::isfinite(p.value) && p.value > 0) v.push_back(p.value);
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    run.steady[key] = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), static_cast<std::int64_t>(n), from};
  }
  if (!run.summaries.count("train/tokens_per_s")) return;
  std::vector<double> v;
  for (const auto& p : s.read_metric_full(run.ref.runId, "train/tokens_per_s"))
    if (std::isfinite(p.value) && p.value > 0) v.push_back(p.value);
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  run.medianTokensPerS = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  run.tokensPerSPoints = static_cast<std::int64_t>(n);
}

void parseConfig(LoadedRun& run) {
  try {
    run.config = nlohmann::json::parse(run.info.config_json.empty() ? std::string("{}") : run.info.config_json);
  } catch (const std::exception& e) {
    run.config = nullptr;
    run.configError = QObject::tr("The run's configuration is not valid JSON: %1").arg(QString::fromUtf8(e.what()));
  }
}

}  // namespace

LoadedRun loadRun(StoreCache& cache, const RunRef& ref) {
  LoadedRun run;
  run.ref = ref;
  run.label = QObject::tr("run %1").arg(ref.runId);
  QString error;
  store::Store* s = cache.store(ref.storePath, &error);
  if (!s) {
    run.error = error;
    return run;
  }
  try {
    auto info = s->get_run(ref.runId);
    if (!info) {
      run.error = QObject::tr("Run %1 is not in %2").arg(ref.runId).arg(ref.storePath);
      return run;
    }
    run.info = *info;
    run.times = store::run_times(*s, *info);
    if (!info->name.empty()) run.label = QString::fromStdString(info->name);
    parseConfig(run);
    readMetrics(*s, run);
    run.mixers = s->read_mixer_all(ref.runId);
    run.perf = s->perf(ref.runId);
    run.evals = s->evals(ref.runId);
    readCosts(*s, run);
  } catch (const std::exception& e) {
    run.error = QObject::tr("Reading run %1 from %2 failed: %3").arg(ref.runId).arg(ref.storePath, QString::fromUtf8(e.what()));
  }
  return run;
}

std::shared_ptr<const LoadedRuns> loadRuns(StoreCache& cache, const QList<RunRef>& refs) {
  auto runs = std::make_shared<LoadedRuns>();
  QHash<QString, int> uses;
  for (const auto& ref : refs) {
    runs->push_back(loadRun(cache, ref));
    uses[runs->back().label] += 1;
  }
  for (auto& run : *runs) {
    if (uses.value(run.label) < 2) continue;
    const QString project = QString::fromStdString(run.info.project);
    run.label = project.isEmpty() ? QStringLiteral("%1 #%2").arg(run.label).arg(run.ref.runId)
                                  : QStringLiteral("%1 (%2 #%3)").arg(run.label, project).arg(run.ref.runId);
  }
  return runs;
}

QStringList unionOfKeys(const LoadedRuns& runs) {
  QStringList keys;
  for (const auto& run : runs)
    for (const auto& key : run.keys)
      if (!keys.contains(QString::fromStdString(key))) keys << QString::fromStdString(key);
  return keys;
}

QColor runColor(int index) {
  static const QColor colors[] = {{0, 114, 178}, {213, 94, 0}, {0, 158, 115}, {204, 121, 167},
                                  {230, 159, 0}, {86, 180, 233}, {0, 0, 0},   {240, 228, 66}};
  return colors[index % static_cast<int>(std::size(colors))];
}

QString colorKey(const LoadedRun& run) {
  // A profile or inference-benchmark run is drawn in the colour of the model it measured.
  if (run.info.kind == store::RunKind::Profile && run.config.is_object())
    for (const char* section : {"profile", "inference"})
      if (run.config.contains(section) && run.config[section].is_object() &&
          run.config[section].value("model", nlohmann::json()).is_string())
        return widgets::modelFamily(QString::fromStdString(run.config[section]["model"].get<std::string>()));
  return widgets::modelFamily(QString::fromStdString(run.info.group.empty() ? run.info.name : run.info.group));
}

QColor modelColor(const LoadedRun& run) { return widgets::modelColors().color(colorKey(run)); }

QColor ModelColorPicker::next(const LoadedRun& run) {
  const QColor base = modelColor(run);
  const int nth = m_seen[colorKey(run)]++;
  if (nth == 0) return base;
  return nth % 2 ? base.darker(100 + 45 * ((nth + 1) / 2)) : base.lighter(100 + 35 * (nth / 2));
}

}  // namespace pha::gui
