// Early stopping on a plateau (training.early_stop): fed each periodic evaluation of the watched
// metric, it says when the metric has not improved by more than min_delta for `patience`
// evaluations in a row. Plain C++, no torch; the job loop (job.cpp) ends the run as finished
// with reason() in its record and log.
#pragma once

#include <cstdint>
#include <string>

#include "project/project.h"

namespace pha::runtime {

class EarlyStopper {
 public:
  explicit EarlyStopper(project::EarlyStop config) : cfg_(std::move(config)) {}

  // One evaluation at `step`; true when the run should stop now. A NaN never improves.
  bool update(int64_t step, double value);

  // "early stop at step 900: val/accuracy did not improve by more than 0.001 in 3 evaluations
  // (best 0.9731 at step 600)".
  std::string reason(int64_t step) const;

  double best() const { return best_; }
  int64_t best_step() const { return best_step_; }

 private:
  project::EarlyStop cfg_;
  double best_ = 0.0;
  int64_t best_step_ = -1;
  int64_t stale_ = 0;
};

}  // namespace pha::runtime
