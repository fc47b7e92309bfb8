#include "project/run_threads.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "model/flops.h"

namespace pha::project {

RunThreads run_threads(const RunPlan& plan, int requested) {
  if (requested > 0) return {requested, fmt::format("{} (--threads)", requested)};
  if (plan.training.threads > 0) return {plan.training.threads, fmt::format("{} (training.threads)", plan.training.threads)};
  if (const char* e = std::getenv("PHA_THREADS"); e && std::atoi(e) > 0)
    return {std::atoi(e), fmt::format("{} ($PHA_THREADS)", std::atoi(e))};
  const std::int64_t params = model::count_parameters(plan.model).total;
  if (params <= kOneCoreParams)
    return {1, fmt::format("1: a model of {:.2f}M <= {}M parameters trains on one core, alone or beside other runs",
                           static_cast<double>(params) / 1e6, kOneCoreParams / 1'000'000)};
  return {0, fmt::format("all cores: a model of {:.1f}M > {}M parameters", static_cast<double>(params) / 1e6,
                         kOneCoreParams / 1'000'000)};
}

int run_cores(const RunThreads& t, int cores) {
  cores = std::max(1, cores);
  return t.threads > 0 ? std::min(t.threads, cores) : cores;
}

int default_jobs(const std::vector<const RunPlan*>& plans, int requested_threads, int cores) {
  if (plans.empty()) return 1;
  int widest = 1;
  for (const RunPlan* p : plans) widest = std::max(widest, run_cores(run_threads(*p, requested_threads), cores));
  return std::clamp(std::max(1, cores) / widest, 1, static_cast<int>(plans.size()));
}

}  // namespace pha::project
