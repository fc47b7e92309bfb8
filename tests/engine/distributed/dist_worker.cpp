// One rank of the distributed tests (test_distributed.cpp starts N of them with the torchrun
// environment). `dist_worker SCENARIO`: exits 0 when the scenario's checks pass on this rank,
// 1 (with the reason on stderr) when they fail, 3 when a collective failed as the scenario
// expected (the error on stderr).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/functional/loss.h>
#include <torch/utils.h>

#include "core/error.h"
#include "distributed/grad_reducer.h"
#include "distributed/process_group.h"

namespace pd = pha::distributed;

namespace {

int fail(const std::string& why) {
  std::fprintf(stderr, "FAIL: %s\n", why.c_str());
  return 1;
}

int collectives(pd::ProcessGroup& g) {
  std::vector<double> v{static_cast<double>(g.rank() + 1), 0.5};
  g.allreduce_sum(v);
  const double n = g.world_size();
  if (v[0] != n * (n + 1) / 2 || v[1] != 0.5 * n) return fail("allreduce_sum gave " + std::to_string(v[0]));
  std::vector<double> b{g.rank() == 0 ? 1.0 / 3.0 : 7.0};
  g.broadcast_from_rank0(b);
  if (b[0] != 1.0 / 3.0) return fail("broadcast_from_rank0 gave " + std::to_string(b[0]));
  if (!g.any(g.rank() == g.world_size() - 1)) return fail("any() missed the last rank's flag");
  if (g.any(false)) return fail("any(false) was true");
  return 0;
}

torch::nn::Sequential make_net() {
  torch::manual_seed(11);
  return torch::nn::Sequential(torch::nn::Linear(8, 64), torch::nn::Tanh(), torch::nn::Linear(64, 64),
                               torch::nn::Tanh(), torch::nn::Linear(64, 3));
}

// Sum of squared errors over the rows, divided by `count`: rank shares that sum to the
// one-process mean.
at::Tensor loss_of(torch::nn::Sequential& net, const at::Tensor& x, const at::Tensor& y, double count) {
  return (net->forward(x) - y).pow(2).sum() / count;
}

// Two micro-batches of 8 rows; each rank takes rows [r*8/N, (r+1)*8/N) of both. The reduced
// gradient must equal the whole batch's gradient computed in this process.
int reducer(pd::ProcessGroup& g) {
  torch::manual_seed(5);
  const at::Tensor x = torch::randn({2, 8, 8}), y = torch::randn({2, 8, 3});  // (micro, rows, features)
  const int N = g.world_size(), r = g.rank(), rows = 8 / N;
  auto whole = make_net();
  for (int m = 0; m < 2; ++m) (loss_of(whole, x[m], y[m], 8.0 * 3.0) / 2.0).backward();

  auto net = make_net();
  std::vector<at::Tensor> params = net->parameters();
  pd::GradReducer red(std::shared_ptr<pd::ProcessGroup>(&g, [](pd::ProcessGroup*) {}), params, 1024);
  if (red.bucket_count() < 3) return fail("expected several 1 KB buckets, got " + std::to_string(red.bucket_count()));
  for (int step = 0; step < 2; ++step) {  // twice: the hooks stay armed-per-step and buffers reused
    for (auto& p : params) p.mutable_grad() = at::Tensor();
    for (int m = 0; m < 2; ++m) {
      if (m == 1) red.arm();
      (loss_of(net, x[m].narrow(0, r * rows, rows), y[m].narrow(0, r * rows, rows), 8.0 * 3.0) / 2.0).backward();
    }
    red.finish();
    const auto wp = whole->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      const double diff = (params[i].grad() - wp[i].grad()).abs().max().item<double>();
      const double scale = wp[i].grad().abs().max().item<double>();
      if (!(diff <= 1e-5 * std::max(scale, 1e-6)))
        return fail("parameter " + std::to_string(i) + ": reduced gradient differs by " + std::to_string(diff));
    }
    if (red.last_stats().launched_in_backward < 1) return fail("no bucket was launched from a gradient hook");
    if (red.last_stats().bytes <= 0) return fail("no bytes reduced");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  try {
    const auto cfg = pd::config_from_env();
    if (!cfg) return fail("WORLD_SIZE is not set");
    auto g = pd::ProcessGroup::connect(*cfg, "cpu");
    if (scenario == "collectives") return collectives(*g);
    if (scenario == "reducer") return reducer(*g);
    if (scenario == "dead-peer" || scenario == "hung-peer") {
      if (g->rank() == 1) {
        if (scenario == "dead-peer") _exit(0);  // gone without a word
        std::this_thread::sleep_for(std::chrono::seconds(12));  // well past the 3 s timeout
        return 0;
      }
      std::vector<double> v{1.0};
      g->allreduce_sum(v);
      return fail("allreduce with a missing peer returned");
    }
    return fail("unknown scenario " + scenario);
  } catch (const pha::core::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
}
