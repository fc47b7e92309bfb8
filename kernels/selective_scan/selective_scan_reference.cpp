// The naive selective scan (selective_scan.h, ref::): one step of the recurrence per position
// in plain ATen ops, differentiated by autograd. The fused CPU scan is tested against it.
#include "selective_scan/selective_scan.h"

#include <vector>

#include <c10/util/Exception.h>

namespace pha::kernels::ref {

at::Tensor selective_scan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                          const at::Tensor& C) {
  TORCH_CHECK(u.dim() == 3 && delta.sizes() == u.sizes(), "ref::selective_scan: u and delta must be (B, T, D)");
  const bool dbl = u.scalar_type() == at::kDouble || delta.scalar_type() == at::kDouble ||
                   A.scalar_type() == at::kDouble || B.scalar_type() == at::kDouble || C.scalar_type() == at::kDouble;
  const at::ScalarType dt = dbl ? at::kDouble : at::kFloat;
  const at::Tensor uu = u.to(dt), dd = delta.to(dt), AA = A.to(dt), BB = B.to(dt), CC = C.to(dt);
  const int64_t Bn = u.size(0), T = u.size(1), D = u.size(2), N = A.size(1);
  at::Tensor h = at::zeros({Bn, D, N}, uu.options());  // (B, D, N)
  std::vector<at::Tensor> ys;
  for (int64_t t = 0; t < T; ++t) {
    const at::Tensor d_t = dd.select(1, t);                                  // (B, D)
    const at::Tensor decay = at::exp(d_t.unsqueeze(2) * AA);                 // (B, D, N)
    const at::Tensor input = (d_t * uu.select(1, t)).unsqueeze(2) * BB.select(1, t).unsqueeze(1);  // (B, D, N)
    h = decay * h + input;                                                   // (B, D, N)
    ys.push_back((h * CC.select(1, t).unsqueeze(1)).sum(2));                 // (B, D)
  }
  return at::stack(ys, 1);  // (B, T, D)
}

}  // namespace pha::kernels::ref
