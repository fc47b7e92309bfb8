// Benchmark (by hand, not a ctest test): forward and forward+backward of one S6 branch against
// one GSS branch at a preset's widths, and the selective scan against its naive loop.
//   bench_selective_ssm [--preset pha-tiny] [--batch 8] [--seq 512] [--reps 5] [--threads N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/types.h>

#include "model/presets.h"
#include "nn/internal/gss_branch.h"
#include "nn/internal/selective_ssm_branch.h"
#include "selective_scan/selective_scan.h"

namespace {

double median_ms(const std::function<void()>& fn, int reps) {
  fn();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename Module>
void bench_branch(const char* name, Module& m, const at::Tensor& x, int reps) {
  int64_t params = 0;
  for (const auto& p : m->parameters()) params += p.numel();
  const double fwd = median_ms([&] {
    torch::NoGradGuard no_grad;
    m(x);
  }, reps);
  const double both = median_ms([&] {
    m->zero_grad();
    m(x).sum().backward();
  }, reps);
  std::printf("%-4s branch  params %8lld  forward %8.2f ms  forward+backward %8.2f ms\n", name, (long long)params, fwd, both);
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "pha-tiny";
  int64_t B = 8, T = 512;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--preset")) preset = argv[i + 1];
    else if (!std::strcmp(argv[i], "--batch")) B = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seq")) T = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) at::set_num_threads(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: bench_selective_ssm [--preset P] [--batch B] [--seq T] [--reps R] [--threads N]\n");
      return 2;
    }
  }
  at::manual_seed(1);
  pha::model::ModelConfig c = pha::model::preset(preset);
  std::printf("preset %s: d %d, GSS F %d H %d N %d; S6 Di %d N %d conv %d dt_rank %d; B %lld T %lld, %d threads\n",
              preset.c_str(), c.d_model, c.gss_expanded(), c.gss.reduced, c.gss.state, c.selective_inner(),
              c.selective.state, c.selective.conv, c.selective_dt_rank(), (long long)B, (long long)T,
              at::get_num_threads());
  const at::Tensor x = at::randn({B, T, c.d_model});
  pha::nn::GssBranch gss(c);
  pha::nn::SelectiveSsmBranch s6(c);
  bench_branch("GSS", gss, x, reps);
  bench_branch("S6", s6, x, reps);

  const int64_t Di = c.selective_inner(), N = c.selective.state;
  const at::Tensor u = at::randn({B, T, Di}).requires_grad_(true);
  const at::Tensor delta = at::softplus(at::randn({B, T, Di}) - 3.0).requires_grad_(true);
  const at::Tensor A = (-at::arange(1, N + 1, at::kFloat)).expand({Di, N}).contiguous().requires_grad_(true);
  const at::Tensor Bm = at::randn({B, T, N}).requires_grad_(true), Cm = at::randn({B, T, N}).requires_grad_(true);
  const double scan = median_ms([&] { pha::kernels::selective_scan(u, delta, A, Bm, Cm).sum().backward(); }, reps);
  const double naive = median_ms([&] { pha::kernels::ref::selective_scan(u, delta, A, Bm, Cm).sum().backward(); },
                                 std::max(1, reps / 2));
  const double scan_fwd = median_ms([&] {
    torch::NoGradGuard no_grad;
    pha::kernels::selective_scan(u, delta, A, Bm, Cm);
  }, reps);
  std::printf("selective scan (B, T, Di, N) = (%lld, %lld, %lld, %lld): forward %.2f ms, forward+backward %.2f ms; "
              "naive loop forward+backward %.2f ms\n",
              (long long)B, (long long)T, (long long)Di, (long long)N, scan_fwd, scan, naive);
  // the branch's causal depthwise convolution: K shifted multiply-adds against at::conv1d
  const int64_t K = c.selective.conv;
  const at::Tensor cx = at::randn({B, T, Di}).requires_grad_(true);
  const at::Tensor cw = at::randn({Di, 1, K}).requires_grad_(true), cb = at::randn({Di}).requires_grad_(true);
  const double shifted = median_ms([&] {
    const at::Tensor xp = at::constant_pad_nd(cx, {0, 0, K - 1, 0});
    const at::Tensor w = cw.squeeze(1).t();
    at::Tensor y = cb + xp.narrow(1, 0, T) * w[0];
    for (int64_t j = 1; j < K; ++j) y = y + xp.narrow(1, j, T) * w[j];
    y.sum().backward();
  }, reps);
  const double grouped = median_ms([&] {
    at::conv1d(cx.transpose(1, 2), cw, cb, {1}, {K - 1}, {1}, Di).narrow(2, 0, T).sum().backward();
  }, reps);
  std::printf("causal depthwise conv K=%lld forward+backward: shifted multiply-adds %.2f ms, at::conv1d groups=Di %.2f ms\n",
              (long long)K, shifted, grouped);
  return 0;
}
