// Fused RoPE + cosine normalisation + scale (rope_cosine.h): one pass per head row forward, one
// pass backward from the saved outputs and inverse norms. CPU, fp32 / fp64 / bf16 input.
#include "rope_cosine/rope_cosine.h"
#include "common/kernel_select.h"

#include <cmath>
#include <vector>

#include <ATen/record_function.h>
#include <ATen/Dispatch.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "common/row_chunks.h"

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr double kMinSquaredNorm = 1e-24;  // cosine_queries / cosine_keys clamp |r|^2 here

struct Dims {
  int64_t B, T, H, Hq, hd, half;
};

// Forward: one (b, t) row of all H heads. x: input row base, strides of qk; c, s: table rows.
// inv[h] = 1/|r| (negated when the norm was clamped: backward then has no projection term).
template <typename in_t, typename acc_t>
void forward_rows(const at::Tensor& qk, const at::Tensor& cos, const at::Tensor& sin, const std::vector<acc_t>& scale,
                  at::Tensor& q_out, at::Tensor& k_out, at::Tensor& inv, const Dims& d) {
  const in_t* x = qk.data_ptr<in_t>();
  const int64_t sb = qk.stride(0), st = qk.stride(1), sh = qk.stride(2);
  const acc_t* cs = cos.data_ptr<acc_t>();
  const acc_t* sn = sin.data_ptr<acc_t>();
  acc_t* qo = q_out.data_ptr<acc_t>();
  acc_t* ko = k_out.data_ptr<acc_t>();
  acc_t* iv = inv.data_ptr<acc_t>();
  const int64_t G = d.H - d.Hq;
  at::parallel_for(0, d.B * d.T, 16, [&](int64_t r0, int64_t r1) {
    std::vector<acc_t> r(d.hd);
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t b = row / d.T, t = row % d.T;
      const acc_t* c = cs + t * d.half;
      const acc_t* s = sn + t * d.half;
      for (int64_t h = 0; h < d.H; ++h) {
        const in_t* xh = x + b * sb + t * st + h * sh;
        acc_t ss = 0;
        for (int64_t i = 0; i < d.half; ++i) {
          const acc_t x1 = static_cast<acc_t>(xh[i]), x2 = static_cast<acc_t>(xh[i + d.half]);
          r[i] = x1 * c[i] - x2 * s[i];
          r[i + d.half] = x2 * c[i] + x1 * s[i];
          ss += r[i] * r[i] + r[i + d.half] * r[i + d.half];
        }
        const bool clamped = ss < static_cast<acc_t>(kMinSquaredNorm);
        const acc_t in = acc_t(1) / std::sqrt(clamped ? static_cast<acc_t>(kMinSquaredNorm) : ss);
        iv[row * d.H + h] = clamped ? -in : in;
        const acc_t f = in * (h < d.Hq ? scale[h] : acc_t(1));
        acc_t* o = h < d.Hq ? qo + (row * d.Hq + h) * d.hd : ko + (row * G + h - d.Hq) * d.hd;
        for (int64_t i = 0; i < d.hd; ++i) o[i] = r[i] * f;
      }
    }
  });
}

// Backward: dx = R^T dr with dr = f * (g - u (u . g)), u = o / (f |r|) the unit vector;
// d log_scale[h] = sum over rows of g . o (where the clamp passes the gradient).
template <typename in_t, typename acc_t>
void backward_rows(const at::Tensor& q, const at::Tensor& k, const at::Tensor& inv, const at::Tensor& dq,
                   const at::Tensor& dk, const at::Tensor& cos, const at::Tensor& sin, const std::vector<acc_t>& scale,
                   at::Tensor& dx, at::Tensor& dls_partial, const Dims& d) {
  const acc_t* qo = q.data_ptr<acc_t>();
  const acc_t* ko = k.data_ptr<acc_t>();
  const acc_t* iv = inv.data_ptr<acc_t>();
  const acc_t* gq = dq.defined() ? dq.data_ptr<acc_t>() : nullptr;
  const acc_t* gk = dk.defined() ? dk.data_ptr<acc_t>() : nullptr;
  const acc_t* cs = cos.data_ptr<acc_t>();
  const acc_t* sn = sin.data_ptr<acc_t>();
  in_t* out = dx.data_ptr<in_t>();
  acc_t* part = dls_partial.data_ptr<acc_t>();  // (chunks, Hq)
  const int64_t G = d.H - d.Hq;
  detail::for_row_chunks(d.B * d.T, [&](int64_t chunk, int64_t r0, int64_t r1) {
    std::vector<acc_t> dr(d.hd);
    acc_t* dls = part + chunk * d.Hq;
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t t = row % d.T;
      const acc_t* c = cs + t * d.half;
      const acc_t* s = sn + t * d.half;
      for (int64_t h = 0; h < d.H; ++h) {
        in_t* dxh = out + (row * d.H + h) * d.hd;
        const bool is_q = h < d.Hq;
        const acc_t* g = is_q ? (gq ? gq + (row * d.Hq + h) * d.hd : nullptr)
                              : (gk ? gk + (row * G + h - d.Hq) * d.hd : nullptr);
        if (!g) {
          for (int64_t i = 0; i < d.hd; ++i) dxh[i] = in_t(0);
          continue;
        }
        const acc_t* o = is_q ? qo + (row * d.Hq + h) * d.hd : ko + (row * G + h - d.Hq) * d.hd;
        const acc_t in = std::abs(iv[row * d.H + h]);
        const acc_t f = in * (is_q ? scale[h] : acc_t(1));
        acc_t go = 0;
        for (int64_t i = 0; i < d.hd; ++i) go += g[i] * o[i];
        if (is_q) dls[h] += go;
        // o = c u with u = r / |r| and c the head's scale, f = c / |r|: dr = f (g - u (u . g)),
        // which is f g - (go / (c |r|)) o = f g - (go in^2 / f) o. A clamped norm is a constant.
        const acc_t proj = iv[row * d.H + h] > 0 ? go * in * in / f : acc_t(0);
        for (int64_t i = 0; i < d.hd; ++i) dr[i] = f * g[i] - proj * o[i];
        for (int64_t i = 0; i < d.half; ++i) {
          const acc_t a = dr[i], b = dr[i + d.half];
          dxh[i] = static_cast<in_t>(a * c[i] + b * s[i]);
          dxh[i + d.half] = static_cast<in_t>(b * c[i] - a * s[i]);
        }
      }
    }
  });
}

std::vector<double> scales_of(const at::Tensor& log_scale, double max_log_scale) {
  const at::Tensor ls = log_scale.detach().to(at::kCPU, at::kDouble).contiguous();
  std::vector<double> out(static_cast<size_t>(ls.numel()));
  for (int64_t h = 0; h < ls.numel(); ++h) out[h] = std::exp(std::min(ls.data_ptr<double>()[h], max_log_scale));
  return out;
}

template <typename acc_t>
std::vector<acc_t> as_acc(const std::vector<double>& v) {
  return std::vector<acc_t>(v.begin(), v.end());
}

struct RopeCosineFn : public torch::autograd::Function<RopeCosineFn> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& qk_in, const at::Tensor& log_scale,
                               const at::Tensor& cos_in, const at::Tensor& sin_in, int64_t Hq, double max_log_scale) {
    RECORD_FUNCTION("pha::rope_cosine", std::vector<c10::IValue>());  // named in --trace files
    const at::Tensor qk = qk_in.stride(3) == 1 ? qk_in : qk_in.contiguous();
    const at::ScalarType acc = detail::opmath_dtype(qk.scalar_type());
    const at::Tensor cos = cos_in.to(acc).contiguous(), sin = sin_in.to(acc).contiguous();
    const Dims d{qk.size(0), qk.size(1), qk.size(2), Hq, qk.size(3), qk.size(3) / 2};
    const auto o = qk.options().dtype(acc);
    at::Tensor q = at::empty({d.B, d.T, Hq, d.hd}, o), k = at::empty({d.B, d.T, d.H - Hq, d.hd}, o);
    at::Tensor inv = at::empty({d.B, d.T, d.H}, o);
    const std::vector<double> scale = scales_of(log_scale, max_log_scale);
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, qk.scalar_type(), "rope_cosine", [&] {
      using a_t = detail::acc_t<scalar_t>;
      forward_rows<scalar_t, a_t>(qk, cos, sin, as_acc<a_t>(scale), q, k, inv, d);
    });
    ctx->save_for_backward({q, k, inv, cos, sin, log_scale});
    ctx->saved_data["Hq"] = Hq;
    ctx->saved_data["max"] = max_log_scale;
    ctx->saved_data["dtype"] = static_cast<int64_t>(qk.scalar_type());
    return {q, k};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &inv = saved[2], &cos = saved[3], &sin = saved[4];
    const at::Tensor& log_scale = saved[5];
    const int64_t Hq = ctx->saved_data["Hq"].toInt();
    const double max_log_scale = ctx->saved_data["max"].toDouble();
    const auto in_dtype = static_cast<at::ScalarType>(ctx->saved_data["dtype"].toInt());
    const Dims d{q.size(0), q.size(1), Hq + k.size(2), Hq, q.size(3), q.size(3) / 2};
    const at::Tensor dq = grads[0].defined() ? grads[0].to(q.scalar_type()).contiguous() : at::Tensor();
    const at::Tensor dk = grads[1].defined() ? grads[1].to(q.scalar_type()).contiguous() : at::Tensor();
    at::Tensor dx = at::empty({d.B, d.T, d.H, d.hd}, q.options().dtype(in_dtype));
    at::Tensor part = at::zeros({detail::row_chunks(d.B * d.T), Hq}, q.options());
    const std::vector<double> scale = scales_of(log_scale, max_log_scale);
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, in_dtype, "rope_cosine_backward", [&] {
      using a_t = detail::acc_t<scalar_t>;
      backward_rows<scalar_t, a_t>(q, k, inv, dq, dk, cos, sin, as_acc<a_t>(scale), dx, part, d);
    });
    // the clamp passes the gradient where log_scale <= max (as at::clamp_max does)
    const at::Tensor pass = log_scale.detach().le(max_log_scale).to(log_scale.scalar_type());
    const at::Tensor dls = part.sum(0, /*keepdim=*/false, at::kDouble).to(log_scale.scalar_type()) * pass;
    return {dx, dls, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

void check_inputs(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, const at::Tensor& log_scale) {
  TORCH_CHECK(qk.dim() == 4, "rope_cosine: qk must be (B, T, Hq + G, hd), got ", qk.sizes());
  TORCH_CHECK(Hq >= 1 && Hq < qk.size(2), "rope_cosine: Hq (", Hq, ") must be in [1, heads of qk = ", qk.size(2), ")");
  TORCH_CHECK(qk.size(3) % 2 == 0, "rope_cosine: head_dim must be even, got ", qk.size(3));
  TORCH_CHECK(tables.cos.dim() == 2 && tables.cos.size(0) == qk.size(1) && tables.cos.size(1) == qk.size(3) / 2 &&
                  tables.sin.sizes() == tables.cos.sizes(),
              "rope_cosine: tables must be (", qk.size(1), ", ", qk.size(3) / 2, "), got ", tables.cos.sizes());
  TORCH_CHECK(log_scale.dim() == 1 && log_scale.size(0) == Hq, "rope_cosine: log_scale must be (", Hq, "), got ",
              log_scale.sizes());
  TORCH_CHECK(at::isFloatingType(qk.scalar_type()), "rope_cosine: qk must be a float tensor");
}

}  // namespace

RopeCosine rope_cosine(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, const at::Tensor& log_scale,
                       double max_log_scale) {
  check_inputs(qk, Hq, tables, log_scale);
  const at::ScalarType dt = qk.scalar_type();
  const bool fused = qk.device().is_cpu() && (dt == at::kFloat || dt == at::kDouble || dt == at::kBFloat16);
  if (!fused || reference_kernel(KernelOp::RopeCosine)) return ref::rope_cosine(qk, Hq, tables, log_scale, max_log_scale);
  const auto out = RopeCosineFn::apply(qk, log_scale, tables.cos, tables.sin, Hq, max_log_scale);
  return {out[0], out[1]};
}

}  // namespace pha::kernels
