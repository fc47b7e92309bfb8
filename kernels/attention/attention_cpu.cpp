#include "attention/attention_cpu.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// (T, hd) view of head h of batch b: rows strided by heads * hd, unit stride along hd.
at::Tensor head(const at::Tensor& x, int64_t b, int64_t h) { return x.select(0, b).select(1, h); }

at::Tensor unit_last_stride(const at::Tensor& x) { return x.stride(3) == 1 ? x : x.contiguous(); }

// Max and sum of n >= 1 values with 8 independent accumulators: a single accumulator is a
// serial chain the compiler may not reorder, these lanes it vectorises (the softmax rows are
// most of the kernel's non-GEMM time at long T).
template <typename T>
T row_max(const T* x, int64_t n) {
  T acc[8];
  for (T& a : acc) a = x[0];
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] = x[j + k] > acc[k] ? x[j + k] : acc[k];
  for (; j < n; ++j) acc[0] = x[j] > acc[0] ? x[j] : acc[0];
  T m = acc[0];
  for (int k = 1; k < 8; ++k) m = acc[k] > m ? acc[k] : m;
  return m;
}

template <typename T>
T row_sum(const T* x, int64_t n) {
  T acc[8] = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] += x[j + k];
  for (; j < n; ++j) acc[0] += x[j];
  T s = 0;
  for (T a : acc) s += a;
  return s;
}

// Row i of the (nb, ke) block sees keys [0, first + i) (clipped to ke); the rest is masked.
// Forward: s <- softmax(s) in place with zeros at masked keys; lse[i] = log-sum-exp of row i.
template <typename T>
void causal_softmax_(at::Tensor& s, int64_t first, T* lse) {
  const int64_t nb = s.size(0), ke = s.size(1);
  T* base = s.data_ptr<T>();
  const T neg_inf = -std::numeric_limits<T>::infinity();
  at::parallel_for(0, nb, 8, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* row = base + i * ke;
      const int64_t len = std::min(ke, first + i);
      const T m = row_max(row, len);
      for (int64_t j = 0; j < len; ++j) row[j] -= m;
      for (int64_t j = len; j < ke; ++j) row[j] = neg_inf;
      lse[i] = m;
    }
  });
  s.exp_();  // ATen's vectorised exp; masked entries become 0
  at::parallel_for(0, nb, 8, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* row = base + i * ke;
      const int64_t len = std::min(ke, first + i);
      const T sum = row_sum(row, len);
      const T inv = T(1) / sum;
      for (int64_t j = 0; j < len; ++j) row[j] *= inv;
      lse[i] += std::log(sum);
    }
  });
}

// Backward recompute: s (scores) <- exp(s - lse) with zeros at masked keys.
template <typename T>
void causal_probabilities_(at::Tensor& s, int64_t first, const T* lse) {
  const int64_t nb = s.size(0), ke = s.size(1);
  T* base = s.data_ptr<T>();
  const T neg_inf = -std::numeric_limits<T>::infinity();
  at::parallel_for(0, nb, 8, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* row = base + i * ke;
      const int64_t len = std::min(ke, first + i);
      const T l = lse[i];
      for (int64_t j = 0; j < len; ++j) row[j] -= l;
      for (int64_t j = len; j < ke; ++j) row[j] = neg_inf;
    }
  });
  s.exp_();
}

// dp <- p * (dp - delta_i) (the softmax backward; masked entries have p = 0).
template <typename T>
void softmax_backward_(at::Tensor& dp, const at::Tensor& p, const T* delta) {
  const int64_t nb = dp.size(0), ke = dp.size(1);
  T* d = dp.data_ptr<T>();
  const T* pp = p.data_ptr<T>();
  at::parallel_for(0, nb, 8, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      T* dr = d + i * ke;
      const T* pr = pp + i * ke;
      const T di = delta[i];
      for (int64_t j = 0; j < ke; ++j) dr[j] = pr[j] * (dr[j] - di);
    }
  });
}

struct Shape {
  int64_t B, T, S, Hq, G, r, hd, offset, block;
};

Shape shape_of(const at::Tensor& q, const at::Tensor& k, int64_t block) {
  Shape s{q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), 0, q.size(3), 0, block};
  s.r = s.Hq / s.G;
  s.offset = s.S - s.T;
  if (s.block <= 0) s.block = cpu_attention_query_block(s.T, s.S, q.element_size());
  return s;
}

template <typename T>
void forward_impl(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, at::Tensor& o,
                  at::Tensor& lse, const Shape& d) {
  at::Tensor s = at::empty({std::min(d.block, d.T) * d.S}, q.options());  // scratch: rows x visible keys
  T* lse_base = lse.data_ptr<T>();  // (B, Hq, T)
  for (int64_t b = 0; b < d.B; ++b) {
    for (int64_t h = 0; h < d.Hq; ++h) {
      const at::Tensor qh = head(q, b, h), kh = head(k, b, h / d.r), vh = head(v, b, h / d.r);
      const at::Tensor oh = head(o, b, h);
      for (int64_t t0 = 0; t0 < d.T; t0 += d.block) {
        const int64_t t1 = std::min(d.T, t0 + d.block), nb = t1 - t0, ke = d.offset + t1;
        at::Tensor sb = s.narrow(0, 0, nb * ke).view({nb, ke});
        at::mm_out(sb, qh.narrow(0, t0, nb), kh.narrow(0, 0, ke).t());
        causal_softmax_<T>(sb, d.offset + t0 + 1, lse_base + (b * d.Hq + h) * d.T + t0);
        at::Tensor ob = oh.narrow(0, t0, nb);
        at::mm_out(ob, sb, vh.narrow(0, 0, ke));
      }
    }
  }
}

template <typename T>
void backward_impl(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& lse,
                   const at::Tensor& dout, const at::Tensor& delta, at::Tensor& dq, at::Tensor& dk,
                   at::Tensor& dv, const Shape& d) {
  const int64_t scratch = std::min(d.block, d.T) * d.S;
  at::Tensor p = at::empty({scratch}, q.options()), dp = at::empty({scratch}, q.options());
  const T* lse_base = lse.data_ptr<T>();      // (B, Hq, T)
  const T* delta_base = delta.data_ptr<T>();  // (B, Hq, T)
  for (int64_t b = 0; b < d.B; ++b) {
    for (int64_t h = 0; h < d.Hq; ++h) {
      const int64_t g = h / d.r;
      const at::Tensor qh = head(q, b, h), kh = head(k, b, g), vh = head(v, b, g), doh = head(dout, b, h);
      const at::Tensor dqh = head(dq, b, h), dkh = head(dk, b, g), dvh = head(dv, b, g);
      for (int64_t t0 = 0; t0 < d.T; t0 += d.block) {
        const int64_t t1 = std::min(d.T, t0 + d.block), nb = t1 - t0, ke = d.offset + t1;
        const int64_t row0 = (b * d.Hq + h) * d.T + t0;
        at::Tensor pb = p.narrow(0, 0, nb * ke).view({nb, ke});
        at::Tensor dpb = dp.narrow(0, 0, nb * ke).view({nb, ke});
        const at::Tensor qb = qh.narrow(0, t0, nb), dob = doh.narrow(0, t0, nb);
        const at::Tensor kb = kh.narrow(0, 0, ke), vb = vh.narrow(0, 0, ke);
        at::mm_out(pb, qb, kb.t());
        causal_probabilities_<T>(pb, d.offset + t0 + 1, lse_base + row0);
        dvh.narrow(0, 0, ke).addmm_(pb.t(), dob);  // dV += P^T dO
        at::mm_out(dpb, dob, vb.t());               // dP = dO V^T
        softmax_backward_<T>(dpb, pb, delta_base + row0);
        at::Tensor dqb = dqh.narrow(0, t0, nb);
        at::mm_out(dqb, dpb, kb);                   // dQ = dS K
        dkh.narrow(0, 0, ke).addmm_(dpb.t(), qb);  // dK += dS^T Q
      }
    }
  }
}

struct CpuAttentionFn : public torch::autograd::Function<CpuAttentionFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q_in, const at::Tensor& k_in,
                            const at::Tensor& v_in, int64_t block) {
    const at::Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), v = unit_last_stride(v_in);
    const Shape d = shape_of(q, k, block);
    at::Tensor o = at::empty({d.B, d.T, d.Hq, d.hd}, q.options());
    at::Tensor lse = at::empty({d.B, d.Hq, d.T}, q.options());
    AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "cpu_causal_attention", [&] {
      forward_impl<scalar_t>(q, k, v, o, lse, d);
    });
    ctx->save_for_backward({q, k, v, o, lse});
    ctx->saved_data["block"] = d.block;
    return o;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &o = saved[3], &lse = saved[4];
    const Shape d = shape_of(q, k, ctx->saved_data["block"].toInt());
    const at::Tensor dout = unit_last_stride(grad_out[0]);
    // delta[b, h, t] = dO . O over hd (the row sums of dP * P)
    const at::Tensor delta = (dout * o).sum(-1).transpose(1, 2).contiguous();  // (B, Hq, T)
    at::Tensor dq = at::empty({d.B, d.T, d.Hq, d.hd}, q.options());
    at::Tensor dk = at::zeros({d.B, d.S, d.G, d.hd}, q.options());
    at::Tensor dv = at::zeros({d.B, d.S, d.G, d.hd}, q.options());
    AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "cpu_causal_attention_backward", [&] {
      backward_impl<scalar_t>(q, k, v, lse, dout, delta, dq, dk, dv, d);
    });
    return {dq, dk, dv, at::Tensor()};
  }
};

}  // namespace

int64_t cpu_attention_query_block(int64_t T, int64_t S, int64_t elem_size) {
  const int64_t fit = kCpuScoreBudgetBytes / std::max<int64_t>(1, S * elem_size);
  const int64_t hi = std::max<int64_t>(1, std::min(T, kCpuMaxQueryBlock));
  return std::clamp<int64_t>(fit, std::min(kCpuMinQueryBlock, hi), hi);
}

at::Tensor cpu_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t block) {
  TORCH_CHECK(q.device().is_cpu(), "cpu_causal_attention: CPU tensors only");
  TORCH_CHECK(q.scalar_type() == at::kFloat || q.scalar_type() == at::kDouble,
              "cpu_causal_attention: fp32 or fp64 only, got ", q.scalar_type());
  return CpuAttentionFn::apply(q, k, v, block);
}

}  // namespace pha::kernels
