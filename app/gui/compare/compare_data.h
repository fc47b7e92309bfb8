// What the Compare dock and the run report read from run stores: one LoadedRun per compared
// run (info, parsed config, metric summaries with their best values, mixer snapshots, perf
// and eval rows), and StoreCache, which opens each project's store once on the calling
// thread (runs may come from different projects). Reading never throws: problems become
// LoadedRun::error / configError, which the widgets show.
#pragma once

#include "widgets/number_format.h"  // formatCount, formatBytes (widgets)

#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_times.h"
#include "store/store.h"
#include "store/types.h"
#include "widgets/run_ref.h"

namespace pha::gui {

using widgets::RunRef;  // widgets/run_ref.h

// One store connection per file, opened lazily on the owner's thread (one Store per thread).
// Opening never creates a file and never marks runs interrupted: comparing is read-only.
class StoreCache {
 public:
  StoreCache();
  ~StoreCache();
  StoreCache(const StoreCache&) = delete;
  StoreCache& operator=(const StoreCache&) = delete;

  // nullptr with *error set when the file is missing or is not a run store.
  pha::store::Store* store(const QString& path, QString* error);
  // Closes every connection (before a store file is replaced, e.g. by a recovery).
  void clear() { m_stores.clear(); }

 private:
  std::map<QString, std::unique_ptr<pha::store::Store>> m_stores;
};

// A metric key's best value: the store keeps min, max and best_step (the step of the min for
// minimized keys, of the max for maximized ones); which of the two it is, is read from the
// downsampled bucket that holds best_step, else (one value, or both extremes in that bucket)
// from the metric table (core/metric_table.h higher_is_better).
struct BestValue {
  double value = 0.0;
  std::int64_t step = -1;
  bool higherIsBetter = false;
};

struct LoadedRun {
  RunRef ref;
  QString label;  // what legends, columns and point labels show
  QString error;  // non-empty: the run could not be read at all
  pha::store::RunInfo info;
  pha::store::RunTimes times;  // training time and wall time (store/run_times.h, the run table's rule)
  nlohmann::json config;  // the parsed config_json (null when it did not parse)
  QString configError;
  std::vector<std::string> keys;
  std::map<std::string, pha::store::MetricSummary> summaries;
  std::map<std::string, BestValue> best;
  std::vector<pha::store::MixerSnapshot> mixers;  // ordered by step
  std::vector<pha::store::PerfRow> perf;
  std::vector<pha::store::EvalRow> evals;
  // A training run's model as the store's efficiency profile measured it (runtime::
  // profile_of_model): that profile run's id (0: never profiled) and its perf rows.
  qint64 profileRunId = 0;
  std::vector<pha::store::PerfRow> profile;
  // The median of the run's own train/tokens_per_s points and how many there were (0: none).
  double medianTokensPerS = 0.0;
  std::int64_t tokensPerSPoints = 0;
  // Per speed key (a "tokens_per_s" metric): the median over the steady state, the points after
  // the first fifth of the run's steps (compilation, allocator and cache warm-up come first);
  // what Compare's Metrics ranks instead of the last step's value.
  struct Steady {
    double median = 0.0;
    std::int64_t points = 0, fromStep = 0;
  };
  std::map<std::string, Steady> steady;

  bool ok() const { return error.isEmpty(); }
};

using LoadedRuns = std::vector<LoadedRun>;

// Reads everything the tabs need except metric curves (those are read per plot width).
LoadedRun loadRun(StoreCache& cache, const RunRef& ref);
// loadRun for each, then labels: the run name, with the project and id added where two
// compared runs share a name.
std::shared_ptr<const LoadedRuns> loadRuns(StoreCache& cache, const QList<RunRef>& refs);

std::optional<BestValue> bestValue(const pha::store::MetricSummary& summary,
                                   const std::vector<pha::store::MetricBucket>& buckets,
                                   const std::string& key);

// Metric keys of all runs (first-seen order), e.g. for a key selector.
QStringList unionOfKeys(const LoadedRuns& runs);

// A qualitative palette (Okabe-Ito), distinguishable by colour-blind readers; cycles.
QColor runColor(int index);
// The run's model's colour in every dock (widgets::modelColors): keyed by its group (its name
// when it has none), a profile run by the model it measured.
QString colorKey(const LoadedRun& run);
QColor modelColor(const LoadedRun& run);
// modelColor of each run a view draws, in order; a model's second, third... run in the same
// view (two seeds, a rerun) gets a darker, then lighter shade of it, so lines stay apart.
class ModelColorPicker {
 public:
  QColor next(const LoadedRun& run);

 private:
  QHash<QString, int> m_seen;
};

}  // namespace pha::gui
