// Bucketed gradient allreduce overlapped with backward (DDP's design, written against the
// c10d ProcessGroup because Debian's LibTorch cannot compile c10d/reducer.hpp; see
// docs/distributed.md). Parameters are packed into buckets of ~25 MB in reverse parameter
// order (the order backward produces their gradients); a post hook on each parameter's
// gradient accumulator marks it ready, and a bucket whose gradients are all ready is copied
// into one flat buffer and allreduced asynchronously while backward goes on. finish() waits for
// every bucket and writes the sums back into .grad. Uses ATen types: include it only from
// torch translation units (trainer.cpp), never from a header the GUI parses.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>

#include "distributed/process_group.h"

namespace pha::distributed {

struct ReduceStats {
  int buckets = 0;
  int64_t bytes = 0;          // gradient bytes allreduced this step
  int launched_in_backward = 0;  // buckets launched from hooks (the rest after backward)
  double exposed_s = 0.0;     // finish(): waiting and copying back after backward (not hidden)
  double inflight_s = 0.0;    // sum over buckets of launch -> completion seen, an upper bound
                              // on the reduction time itself
};

class GradReducer {
 public:
  static constexpr int64_t kDefaultBucketBytes = 25ll << 20;  // DDP's bucket_cap_mb = 25

  GradReducer(std::shared_ptr<ProcessGroup> group, std::vector<at::Tensor> params,
              int64_t bucket_bytes = kDefaultBucketBytes);
  ~GradReducer();
  GradReducer(const GradReducer&) = delete;
  GradReducer& operator=(const GradReducer&) = delete;

  // The next backward's gradients are reduced: call before the last micro-batch's backward
  // (the earlier ones only accumulate, like DDP's no_sync()).
  void arm();
  // Launches any bucket backward did not fill (parameters without a gradient), waits for all,
  // and leaves the sum over the ranks in every .grad. Collective on every rank.
  void finish();
  const ReduceStats& last_stats() const;
  int bucket_count() const;

  struct Impl;
  void on_ready(size_t param_index);  // called by the gradient hooks

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pha::distributed
