// Fused RMSNorm and RoPE (llama_ops.h): CPU, fp32 / fp64.
#include "llama_ops/llama_ops.h"

#include <cmath>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "common/kernel_select.h"
#include "common/row_chunks.h"

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

bool fusable(const at::Tensor& x) {
  return x.device().is_cpu() && (x.scalar_type() == at::kFloat || x.scalar_type() == at::kDouble);
}

// ---- RMSNorm ----------------------------------------------------------------------------------

template <typename T>
void rms_forward(const T* x, const T* w, T* y, T* inv, int64_t rows, int64_t d, double eps) {
  at::parallel_for(0, rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * d;
      T* yr = y + r * d;
      T ss = 0;
      for (int64_t i = 0; i < d; ++i) ss += xr[i] * xr[i];
      const T iv = T(1) / std::sqrt(ss / static_cast<T>(d) + static_cast<T>(eps));
      inv[r] = iv;
      for (int64_t i = 0; i < d; ++i) yr[i] = xr[i] * iv * w[i];
    }
  });
}

// gx = r (g w) - x r^3 (sum g w x) / d; gw = sum over rows of g x r, summed per fixed chunk of rows
// (deterministic whatever the threads).
template <typename T>
void rms_backward(const T* x, const T* w, const T* inv, const T* g, T* gx, T* gw, int64_t rows, int64_t d) {
  const int64_t chunks = detail::row_chunks(rows);
  std::vector<T> partial(static_cast<size_t>(chunks * d), T(0));
  detail::for_row_chunks(rows, [&](int64_t c, int64_t r0, int64_t r1) {
    T* pw = partial.data() + c * d;
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * d;
      const T* gr = g + r * d;
      T* gxr = gx + r * d;
      const T iv = inv[r];
      T dot = 0;
      for (int64_t i = 0; i < d; ++i) dot += gr[i] * w[i] * xr[i];
      const T k = iv * iv * iv * dot / static_cast<T>(d);
      for (int64_t i = 0; i < d; ++i) {
        gxr[i] = iv * (gr[i] * w[i]) - xr[i] * k;
        pw[i] += gr[i] * xr[i] * iv;
      }
    }
  });
  for (int64_t i = 0; i < d; ++i) gw[i] = 0;
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t i = 0; i < d; ++i) gw[i] += partial[static_cast<size_t>(c * d + i)];
}

struct RmsNormFn : public torch::autograd::Function<RmsNormFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x_in, const at::Tensor& w_in, double eps) {
    RECORD_FUNCTION("pha::rms_norm", std::vector<c10::IValue>{});
    const at::Tensor x = x_in.contiguous();
    const at::Tensor w = w_in.to(x.scalar_type()).contiguous();
    const int64_t d = x.size(-1), rows = x.numel() / d;
    at::Tensor y = at::empty_like(x);
    at::Tensor inv = at::empty({rows}, x.options());
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "pha::rms_norm", [&] {
      rms_forward<scalar_t>(x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
                            inv.data_ptr<scalar_t>(), rows, d, eps);
    });
    ctx->save_for_backward({x, w, inv});
    ctx->saved_data["w_dtype"] = static_cast<int64_t>(w_in.scalar_type());
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    RECORD_FUNCTION("pha::rms_norm_backward", std::vector<c10::IValue>{});
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &w = saved[1], &inv = saved[2];
    const at::Tensor g = grads[0].contiguous();
    const int64_t d = x.size(-1), rows = x.numel() / d;
    at::Tensor gx = at::empty_like(x);
    at::Tensor gw = at::empty({d}, x.options());
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "pha::rms_norm_backward", [&] {
      rms_backward<scalar_t>(x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(), inv.data_ptr<scalar_t>(),
                             g.data_ptr<scalar_t>(), gx.data_ptr<scalar_t>(), gw.data_ptr<scalar_t>(), rows, d);
    });
    const auto w_dtype = static_cast<at::ScalarType>(ctx->saved_data["w_dtype"].toInt());
    return {gx, gw.to(w_dtype), at::Tensor()};
  }
};

// ---- RoPE of q and k ---------------------------------------------------------------------------

// Forward: each (b, t) row's H = Hq + G heads of x (strided, unit stride along hd) into q (heads
// < Hq, times q_scale) and k. Backward (inverse): dq, dk (contiguous; undefined: zero) back
// through the transposed rotation into gx (B, T, H, hd).
template <typename T>
void rope_forward(const T* x, int64_t sb, int64_t st, int64_t sh, const T* cs, const T* sn, T* q, T* k, int64_t B,
                  int64_t Tn, int64_t H, int64_t Hq, int64_t hd, T q_scale) {
  const int64_t half = hd / 2, G = H - Hq;
  at::parallel_for(0, B * Tn, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t b = row / Tn, t = row % Tn;
      const T* c = cs + t * half;
      const T* s = sn + t * half;
      for (int64_t h = 0; h < H; ++h) {
        const T* xh = x + b * sb + t * st + h * sh;
        if (h < Hq) {
          T* o = q + (row * Hq + h) * hd;
          for (int64_t i = 0; i < half; ++i) {
            const T x1 = xh[i], x2 = xh[i + half];
            const T a = x1 * c[i] - x2 * s[i];
            const T e = x2 * c[i] + x1 * s[i];
            o[i] = a * q_scale;
            o[i + half] = e * q_scale;
          }
        } else {
          T* o = k + (row * G + h - Hq) * hd;
          for (int64_t i = 0; i < half; ++i) {
            const T x1 = xh[i], x2 = xh[i + half];
            o[i] = x1 * c[i] - x2 * s[i];
            o[i + half] = x2 * c[i] + x1 * s[i];
          }
        }
      }
    }
  });
}

template <typename T>
void rope_backward(const T* dq, const T* dk, const T* cs, const T* sn, T* gx, int64_t B, int64_t Tn, int64_t H,
                   int64_t Hq, int64_t hd, T q_scale) {
  const int64_t half = hd / 2, G = H - Hq;
  at::parallel_for(0, B * Tn, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      const int64_t t = row % Tn;
      const T* c = cs + t * half;
      const T* s = sn + t * half;
      for (int64_t h = 0; h < H; ++h) {
        T* o = gx + (row * H + h) * hd;
        const T* g = h < Hq ? (dq ? dq + (row * Hq + h) * hd : nullptr) : (dk ? dk + (row * G + h - Hq) * hd : nullptr);
        if (!g) {
          for (int64_t i = 0; i < hd; ++i) o[i] = T(0);
          continue;
        }
        const T f = h < Hq ? q_scale : T(1);
        for (int64_t i = 0; i < half; ++i) {
          const T g1 = h < Hq ? g[i] * f : g[i], g2 = h < Hq ? g[i + half] * f : g[i + half];
          o[i] = g1 * c[i] + g2 * s[i];
          o[i + half] = g2 * c[i] - g1 * s[i];
        }
      }
    }
  });
}

struct RopeQKFn : public torch::autograd::Function<RopeQKFn> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& qk, int64_t Hq, const at::Tensor& cos,
                               const at::Tensor& sin, double q_scale) {
    RECORD_FUNCTION("pha::rope_qk", std::vector<c10::IValue>{});
    const int64_t B = qk.size(0), Tn = qk.size(1), H = qk.size(2), hd = qk.size(3);
    at::Tensor q = at::empty({B, Tn, Hq, hd}, qk.options());
    at::Tensor k = at::empty({B, Tn, H - Hq, hd}, qk.options());
    AT_DISPATCH_FLOATING_TYPES(qk.scalar_type(), "pha::rope_qk", [&] {
      rope_forward<scalar_t>(qk.data_ptr<scalar_t>(), qk.stride(0), qk.stride(1), qk.stride(2),
                             cos.data_ptr<scalar_t>(), sin.data_ptr<scalar_t>(), q.data_ptr<scalar_t>(),
                             k.data_ptr<scalar_t>(), B, Tn, H, Hq, hd, static_cast<scalar_t>(q_scale));
    });
    ctx->save_for_backward({cos, sin});
    ctx->saved_data["Hq"] = Hq;
    ctx->saved_data["H"] = H;
    ctx->saved_data["q_scale"] = q_scale;
    return {q, k};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    RECORD_FUNCTION("pha::rope_qk_backward", std::vector<c10::IValue>{});
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &cos = saved[0], &sin = saved[1];
    const int64_t Hq = ctx->saved_data["Hq"].toInt(), H = ctx->saved_data["H"].toInt();
    const at::Tensor dq = grads[0].defined() ? grads[0].contiguous() : at::Tensor();
    const at::Tensor dk = grads[1].defined() ? grads[1].contiguous() : at::Tensor();
    const at::Tensor& like = dq.defined() ? dq : dk;
    if (!like.defined()) return {at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    const int64_t B = like.size(0), Tn = like.size(1), hd = like.size(3);
    at::Tensor gx = at::empty({B, Tn, H, hd}, like.options());
    AT_DISPATCH_FLOATING_TYPES(like.scalar_type(), "pha::rope_qk_backward", [&] {
      rope_backward<scalar_t>(dq.defined() ? dq.data_ptr<scalar_t>() : nullptr,
                              dk.defined() ? dk.data_ptr<scalar_t>() : nullptr, cos.data_ptr<scalar_t>(),
                              sin.data_ptr<scalar_t>(), gx.data_ptr<scalar_t>(), B, Tn, H, Hq, hd,
                              static_cast<scalar_t>(ctx->saved_data["q_scale"].toDouble()));
    });
    return {gx, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// ---- SwiGLU on the packed up projection -------------------------------------------------------
// The sigmoid of the gate comes from ATen's vectorised kernel (one call, its exp is SIMD; a scalar
// exp per element was slower than the unfused chain) and is kept for backward; the products and
// the gradient are one pass each, writing the packed gradient in one piece.

template <typename T>
void swiglu_forward(const T* gv, const T* sg, T* out, int64_t rows, int64_t W) {
  at::parallel_for(0, rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* g = gv + r * 2 * W;
      const T* v = g + W;
      const T* s = sg + r * W;
      T* o = out + r * W;
      for (int64_t i = 0; i < W; ++i) o[i] = g[i] * s[i] * v[i];
    }
  });
}

// d gate = go v s (1 + g (1 - s)), d value = go g s.
template <typename T>
void swiglu_backward(const T* gv, const T* sg, const T* go, T* dgv, int64_t rows, int64_t W) {
  at::parallel_for(0, rows, 16, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* g = gv + r * 2 * W;
      const T* v = g + W;
      const T* s = sg + r * W;
      const T* o = go + r * W;
      T* dg = dgv + r * 2 * W;
      T* dv = dg + W;
      for (int64_t i = 0; i < W; ++i) {
        dg[i] = o[i] * v[i] * s[i] * (T(1) + g[i] * (T(1) - s[i]));
        dv[i] = o[i] * g[i] * s[i];
      }
    }
  });
}

struct SwigluFn : public torch::autograd::Function<SwigluFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& gv_in) {
    RECORD_FUNCTION("pha::swiglu", std::vector<c10::IValue>{});
    const at::Tensor gv = gv_in.contiguous();
    const int64_t W = gv.size(-1) / 2, rows = gv.numel() / (2 * W);
    const at::Tensor sg = at::sigmoid(gv.narrow(-1, 0, W)).contiguous();  // (..., W)
    at::Tensor out = at::empty_like(sg);
    AT_DISPATCH_FLOATING_TYPES(gv.scalar_type(), "pha::swiglu", [&] {
      swiglu_forward<scalar_t>(gv.data_ptr<scalar_t>(), sg.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), rows, W);
    });
    ctx->save_for_backward({gv, sg});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    RECORD_FUNCTION("pha::swiglu_backward", std::vector<c10::IValue>{});
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &gv = saved[0], &sg = saved[1];
    const at::Tensor go = grads[0].contiguous();
    const int64_t W = gv.size(-1) / 2, rows = gv.numel() / (2 * W);
    at::Tensor dgv = at::empty_like(gv);
    AT_DISPATCH_FLOATING_TYPES(gv.scalar_type(), "pha::swiglu_backward", [&] {
      swiglu_backward<scalar_t>(gv.data_ptr<scalar_t>(), sg.data_ptr<scalar_t>(), go.data_ptr<scalar_t>(),
                                dgv.data_ptr<scalar_t>(), rows, W);
    });
    return {dgv};
  }
};

}  // namespace

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w, double eps) {
  TORCH_CHECK(x.dim() >= 1 && w.dim() == 1 && x.size(-1) == w.size(0), "rms_norm: x (..., d) and w (d), got ",
              x.sizes(), " and ", w.sizes());
  if (reference_kernel(KernelOp::RmsNorm) || !fusable(x) || x.numel() == 0) return ref::rms_norm(x, w, eps);
  return RmsNormFn::apply(x, w, eps);
}

RopeQK rope_qk(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, double q_scale) {
  TORCH_CHECK(qk.dim() == 4 && qk.size(3) % 2 == 0 && Hq >= 1 && Hq < qk.size(2),
              "rope_qk: qk must be (B, T, Hq + G, hd) with even hd and G >= 1, got ", qk.sizes(), " with Hq ", Hq);
  const int64_t T = qk.size(1), half = qk.size(3) / 2;
  TORCH_CHECK(tables.cos.size(0) == T && tables.cos.size(1) == half, "rope_qk: tables must be (", T, ", ", half,
              "), got ", tables.cos.sizes());
  if (reference_kernel(KernelOp::Rope) || !fusable(qk) || qk.stride(3) != 1 || qk.numel() == 0 ||
      tables.cos.scalar_type() != qk.scalar_type())
    return ref::rope_qk(qk, Hq, tables, q_scale);
  const auto out = RopeQKFn::apply(qk, Hq, tables.cos.contiguous(), tables.sin.contiguous(), q_scale);
  return {out[0], out[1]};
}

at::Tensor swiglu(const at::Tensor& gv) {
  TORCH_CHECK(gv.dim() >= 1 && gv.size(-1) % 2 == 0, "swiglu: the last dimension must be even (gate, value), got ",
              gv.sizes());
  if (reference_kernel(KernelOp::Swiglu) || !fusable(gv) || gv.numel() == 0) return ref::swiglu(gv);
  return SwigluFn::apply(gv);
}

}  // namespace pha::kernels
