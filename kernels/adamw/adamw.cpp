// Multi-tensor AdamW (adamw.h): the CPU kernel and the per-tensor ATen reference.
#include "adamw/adamw.h"
#include "common/kernel_select.h"

#include <algorithm>
#include <cmath>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

namespace pha::kernels {
namespace {

constexpr int64_t kChunkElems = 1 << 15;  // elements per parallel work item

struct Chunk {
  size_t tensor;
  int64_t begin, end;
};

bool fusable(const AdamWTensors& t) {
  const at::ScalarType dt = t.param.scalar_type();
  const bool same = t.grad.scalar_type() == dt && t.exp_avg.scalar_type() == dt && t.exp_avg_sq.scalar_type() == dt;
  const bool contiguous =
      t.param.is_contiguous() && t.grad.is_contiguous() && t.exp_avg.is_contiguous() && t.exp_avg_sq.is_contiguous();
  return t.param.device().is_cpu() && t.grad.device().is_cpu() && same && contiguous &&
         (dt == at::kFloat || dt == at::kDouble);
}

template <typename T>
void update(const AdamWTensors& t, const AdamWHyper& h, int64_t begin, int64_t end) {
  T* p = t.param.data_ptr<T>();
  const T* g = t.grad.data_ptr<T>();
  T* m = t.exp_avg.data_ptr<T>();
  T* v = t.exp_avg_sq.data_ptr<T>();
  const double bc1 = 1.0 - std::pow(h.beta1, static_cast<double>(t.step));
  const double bc2 = 1.0 - std::pow(h.beta2, static_cast<double>(t.step));
  const T decay = static_cast<T>(1.0 - h.lr * h.weight_decay);
  const T b1 = static_cast<T>(h.beta1), c1 = static_cast<T>(1.0 - h.beta1);
  const T b2 = static_cast<T>(h.beta2), c2 = static_cast<T>(1.0 - h.beta2);
  const T inv_sqrt_bc2 = static_cast<T>(1.0 / std::sqrt(bc2));
  const T eps = static_cast<T>(h.eps), step_size = static_cast<T>(h.lr / bc1);
  const bool wd = h.weight_decay != 0.0;
  for (int64_t i = begin; i < end; ++i) {
    const T gi = g[i];
    const T pi = wd ? p[i] * decay : p[i];
    const T mi = m[i] * b1 + gi * c1;
    const T vi = v[i] * b2 + gi * gi * c2;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - step_size * mi / (std::sqrt(vi) * inv_sqrt_bc2 + eps);
  }
}

void check(const AdamWTensors& t) {
  TORCH_CHECK(t.param.defined() && t.grad.defined() && t.exp_avg.defined() && t.exp_avg_sq.defined(),
              "adamw_step: param, grad, exp_avg and exp_avg_sq must be defined");
  TORCH_CHECK(t.grad.sizes() == t.param.sizes() && t.exp_avg.sizes() == t.param.sizes() &&
                  t.exp_avg_sq.sizes() == t.param.sizes(),
              "adamw_step: grad and moments must have the parameter's shape ", t.param.sizes());
  TORCH_CHECK(t.step >= 1, "adamw_step: step must be >= 1, got ", t.step);
}

}  // namespace

void adamw_step(const std::vector<AdamWTensors>& tensors, const AdamWHyper& h) {
  if (reference_kernel(KernelOp::AdamW)) return ref::adamw_step(tensors, h);  // PHA_KERNELS
  at::NoGradGuard no_grad;
  std::vector<Chunk> chunks;
  std::vector<AdamWTensors> rest;
  for (size_t i = 0; i < tensors.size(); ++i) {
    check(tensors[i]);
    if (!fusable(tensors[i])) {
      rest.push_back(tensors[i]);
      continue;
    }
    const int64_t n = tensors[i].param.numel();
    for (int64_t b = 0; b < n; b += kChunkElems) chunks.push_back({i, b, std::min(n, b + kChunkElems)});
  }
  at::parallel_for(0, static_cast<int64_t>(chunks.size()), 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const Chunk& ch = chunks[c];
      const AdamWTensors& t = tensors[ch.tensor];
      AT_DISPATCH_FLOATING_TYPES(t.param.scalar_type(), "adamw_step", [&] { update<scalar_t>(t, h, ch.begin, ch.end); });
    }
  });
  for (const Chunk& ch : chunks) {
    if (ch.begin != 0) continue;  // once per tensor: written through data_ptr, so say so to autograd
    for (const at::Tensor* t : {&tensors[ch.tensor].param, &tensors[ch.tensor].exp_avg, &tensors[ch.tensor].exp_avg_sq})
      t->unsafeGetTensorImpl()->bump_version();
  }
  if (!rest.empty()) ref::adamw_step(rest, h);
}

namespace ref {

void adamw_step(const std::vector<AdamWTensors>& tensors, const AdamWHyper& h) {
  at::NoGradGuard no_grad;
  for (const AdamWTensors& t : tensors) {
    check(t);
    at::Tensor p = t.param, m = t.exp_avg, v = t.exp_avg_sq;
    if (h.weight_decay != 0.0) p.mul_(1.0 - h.lr * h.weight_decay);
    const double bc1 = 1.0 - std::pow(h.beta1, static_cast<double>(t.step));
    const double bc2 = 1.0 - std::pow(h.beta2, static_cast<double>(t.step));
    m.mul_(h.beta1).add_(t.grad, 1.0 - h.beta1);
    v.mul_(h.beta2).addcmul_(t.grad, t.grad, 1.0 - h.beta2);
    const at::Tensor denom = (v.sqrt() / std::sqrt(bc2)).add_(h.eps);
    p.addcdiv_(m, denom, -h.lr / bc1);
  }
}

}  // namespace ref
}  // namespace pha::kernels
