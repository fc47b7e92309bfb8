#include "kernel_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/types.h>

#include "attention/attention.h"
#include "gss_conv/gss_conv.h"

namespace pha::kernels::testing {
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

void bench_attention(int64_t B, int64_t T, int64_t Hq, int64_t G, int64_t hd, bool with_ref, int reps) {
  const at::Tensor q = at::randn({B, T, Hq, hd}).requires_grad_(true);
  const at::Tensor k = at::randn({B, T, G, hd}).requires_grad_(true);
  const at::Tensor v = at::randn({B, T, G, hd}).requires_grad_(true);
  const at::Tensor s = at::full({Hq}, 2.3).requires_grad_(true);
  // 0: the dispatcher's choice (the CPU kernel for CPU fp32), 1: the query-blocked ATen path,
  // 2: the full-matrix reference
  auto run = [&](int which) {
    const at::Tensor o = which == 2   ? ref::cosine_attention(q, k, v, s, 4.6)
                         : which == 1 ? cosine_attention(q, k, v, s, 4.6, 0, AttentionBackward::Recompute)
                                      : cosine_attention(q, k, v, s, 4.6);
    o.sum().backward();
  };
  const double fast = median_ms([&] { run(0); }, reps);
  const double blocked = median_ms([&] { run(1); }, reps);
  const double slow = with_ref ? median_ms([&] { run(2); }, reps) : 0.0;
  std::printf("attention fwd+bwd B=%ld T=%ld Hq=%ld G=%ld hd=%ld  cpu kernel %.2f ms  blocked ATen %.2f ms  reference %s\n",
              (long)B, (long)T, (long)Hq, (long)G, (long)hd, fast, blocked,
              with_ref ? (std::to_string(slow) + " ms").c_str() : "(skipped: T*T too large)");
}

void bench_gss(int64_t B, int64_t T, int64_t H, int64_t N, int reps) {
  const at::Tensor lre = at::randn({N}).requires_grad_(true), lim = at::randn({N}).requires_grad_(true);
  const at::Tensor cre = at::randn({H, N}).requires_grad_(true), cim = at::randn({H, N}).requires_grad_(true);
  const at::Tensor D = at::randn({H}).requires_grad_(true);
  const at::Tensor z = at::randn({B, T, H}).requires_grad_(true);
  const double kern = median_ms([&] { dss_kernel(lre, lim, cre, cim, T).sum().backward(); }, reps);
  const double kern_ref = median_ms([&] { ref::dss_kernel(lre, lim, cre, cim, T).sum().backward(); }, reps);
  const at::Tensor K = dss_kernel(lre, lim, cre, cim, T).detach().requires_grad_(true);
  const double conv = median_ms([&] { gss_causal_conv(z, K, D).sum().backward(); }, reps);
  const double conv_ref = T <= 1024 ? median_ms([&] { ref::gss_causal_conv(z, K, D).sum().backward(); }, 1) : 0.0;
  std::printf("gss B=%ld T=%ld H=%ld N=%ld  kernel %.2f ms (ref %.2f)  fft conv fwd+bwd %.2f ms (direct ref %s)\n",
              (long)B, (long)T, (long)H, (long)N, kern, kern_ref, conv,
              T <= 1024 ? (std::to_string(conv_ref) + " ms").c_str() : "skipped");
}

}  // namespace

int run_benchmarks(bool quick) {
  std::printf("threads: %d\n", at::get_num_threads());
  const int reps = quick ? 2 : 5;
  bench_attention(8, 512, 4, 2, 32, true, reps);
  bench_attention(4, 512, 8, 4, 64, true, reps);
  if (!quick) {
    bench_attention(1, 2048, 4, 2, 32, true, 3);
    bench_attention(1, 8192, 4, 2, 32, false, 1);
  }
  bench_gss(8, 512, 64, 64, reps);
  bench_gss(4, 512, 256, 64, reps);
  if (!quick) bench_gss(1, 8192, 64, 64, 3);
  return 0;
}

}  // namespace pha::kernels::testing
