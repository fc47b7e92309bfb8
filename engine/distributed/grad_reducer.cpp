// GradReducer: buckets, gradient-accumulator post hooks and the asynchronous allreduce of each
// bucket's flat buffer (grad_reducer.h says the design).
#include "distributed/grad_reducer.h"

#include <chrono>
#include <mutex>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include "core/error.h"
#include "distributed/internal/process_group_impl.h"

namespace pha::distributed {

using Clock = std::chrono::steady_clock;

// Outside the anonymous namespace: GradReducer::Impl (declared in the header) holds these, and
// a field whose type has internal linkage is -Wsubobject-linkage once this file is compiled
// inside a unity batch.
struct ReducerBucket {
  std::vector<size_t> params;    // indices into Impl::params, in bucket order
  std::vector<int64_t> offsets;  // element offset of each parameter in `flat`
  at::Tensor flat;               // (numel,) the bucket's gradients while they are reduced
  size_t pending = 0;            // parameters not ready yet this step
  c10::intrusive_ptr<c10d::Work> work;
  Clock::time_point launched;
};

namespace {

// Runs after a parameter's AccumulateGrad node, when .grad holds this backward's sum.
class ReadyHook : public torch::autograd::FunctionPostHook {
 public:
  ReadyHook(GradReducer* r, size_t i) : reducer_(r), index_(i) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list& /*inputs*/) override {
    reducer_->on_ready(index_);
    return outputs;
  }

 private:
  GradReducer* reducer_;
  size_t index_;
};

}  // namespace

struct GradReducer::Impl {
  std::shared_ptr<ProcessGroup> group;
  std::vector<at::Tensor> params;
  std::vector<size_t> bucket_of;  // per parameter
  std::vector<ReducerBucket> buckets;
  // The accumulators hold the hooks; a parameter keeps only a weak reference to its own, so
  // they are kept alive here (else each backward would make a fresh one without the hook).
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  std::vector<uintptr_t> hook_keys;
  std::vector<bool> ready;
  size_t next_launch = 0;  // buckets launch in index order on every rank (collective order)
  bool armed = false;
  std::mutex mutex;
  ReduceStats stats;

  void launch(ReducerBucket& b) {
    for (size_t k = 0; k < b.params.size(); ++k) {
      const at::Tensor& g = params[b.params[k]].grad();
      at::Tensor slice = b.flat.narrow(0, b.offsets[k], params[b.params[k]].numel());
      if (g.defined()) {
        slice.copy_(g.reshape({-1}));
      } else {
        slice.zero_();  // unused this step on every rank (same model, same graph)
      }
    }
    std::vector<at::Tensor> t{b.flat};
    b.launched = Clock::now();
    b.work = group->impl().pg->allreduce(t);
    stats.bytes += b.flat.numel() * static_cast<int64_t>(b.flat.element_size());
  }

  // Launches ready buckets in order, stopping at the first one still waiting for gradients.
  void launch_ready(bool in_backward) {
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) {
      launch(buckets[next_launch++]);
      if (in_backward) ++stats.launched_in_backward;
    }
  }
};

GradReducer::GradReducer(std::shared_ptr<ProcessGroup> group, std::vector<at::Tensor> params, int64_t bucket_bytes)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.group = std::move(group);
  m.params = std::move(params);
  m.bucket_of.assign(m.params.size(), 0);
  m.ready.assign(m.params.size(), false);
  int64_t filled = 0;
  // Reverse parameter order: the last layers' gradients come first in backward.
  for (size_t r = m.params.size(); r-- > 0;) {
    const at::Tensor& p = m.params[r];
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    const bool new_bucket = m.buckets.empty() || filled >= bucket_bytes ||
                            m.buckets.back().flat.scalar_type() != p.scalar_type() ||
                            m.buckets.back().flat.device() != p.device();
    if (new_bucket) {
      m.buckets.emplace_back();
      m.buckets.back().flat = at::empty({0}, p.options().requires_grad(false));
      filled = 0;
    }
    ReducerBucket& b = m.buckets.back();
    b.offsets.push_back(b.flat.numel());
    b.params.push_back(r);
    b.flat = at::empty({b.flat.numel() + p.numel()}, b.flat.options());
    m.bucket_of[r] = m.buckets.size() - 1;
    filled += bytes;
  }
  for (size_t i = 0; i < m.params.size(); ++i) {
    auto acc = torch::autograd::impl::grad_accumulator(m.params[i]);
    if (!acc) throw core::Error("distributed", "parameter " + std::to_string(i) + " does not require a gradient");
    m.hook_keys.push_back(acc->add_post_hook(std::make_unique<ReadyHook>(this, i)));
    m.accumulators.push_back(std::move(acc));
  }
}

GradReducer::~GradReducer() {
  for (size_t i = 0; i < impl_->accumulators.size(); ++i) impl_->accumulators[i]->del_post_hook(impl_->hook_keys[i]);
}

void GradReducer::arm() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  m.armed = true;
  m.next_launch = 0;
  m.stats = ReduceStats{};
  m.stats.buckets = static_cast<int>(m.buckets.size());
  std::fill(m.ready.begin(), m.ready.end(), false);
  for (ReducerBucket& b : m.buckets) b.pending = b.params.size();
}

void GradReducer::on_ready(size_t i) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.armed || m.ready[i]) return;
  m.ready[i] = true;
  --m.buckets[m.bucket_of[i]].pending;
  m.launch_ready(true);
}

void GradReducer::finish() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.armed) throw core::Error("distributed", "GradReducer::finish without arm()");
  const auto t0 = Clock::now();
  for (ReducerBucket& b : m.buckets) b.pending = 0;  // parameters without a gradient this step
  m.launch_ready(false);
  for (ReducerBucket& b : m.buckets) {
    m.group->impl().wait(b.work, "gradient allreduce");
    m.stats.inflight_s += std::chrono::duration<double>(Clock::now() - b.launched).count();
    b.work.reset();
    for (size_t k = 0; k < b.params.size(); ++k) {
      at::Tensor& p = m.params[b.params[k]];
      if (!p.grad().defined()) continue;
      p.mutable_grad().copy_(b.flat.narrow(0, b.offsets[k], p.numel()).view_as(p.grad()));
    }
  }
  m.armed = false;
  m.stats.exposed_s = std::chrono::duration<double>(Clock::now() - t0).count();
}

const ReduceStats& GradReducer::last_stats() const { return impl_->stats; }
int GradReducer::bucket_count() const { return static_cast<int>(impl_->buckets.size()); }

}  // namespace pha::distributed
