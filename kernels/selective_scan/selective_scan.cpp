// Selective scan, CPU kernel and dispatch (selective_scan.h). One task per (batch row, chunk of
// kChannels channels): the task's state (channels x N) is a local buffer, the time loop is
// sequential, in segments of kSegment steps whose decays exp(Delta A) are computed first in one
// vectorised exp. Backward: per task, a forward pass that keeps the state every kSegment steps,
// then the segments in reverse order, each rebuilt from its checkpoint and walked backwards.
#include "selective_scan/selective_scan.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>


namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr int64_t kChannels = 16;  // channels per task: B, C rows are shared by them
constexpr int64_t kSegment = 64;   // steps between the backward's state checkpoints

at::ScalarType compute_dtype(std::initializer_list<const at::Tensor*> ts) {
  for (const at::Tensor* t : ts)
    if (t->scalar_type() == at::kDouble) return at::kDouble;
  return at::kFloat;
}

struct Dims {
  int64_t batch, T, D, N;
  int64_t chunks() const { return (D + kChannels - 1) / kChannels; }
  int64_t tasks() const { return batch * chunks(); }
};

Dims check_inputs(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                  const at::Tensor& C) {
  TORCH_CHECK(u.dim() == 3, "selective_scan: u must be (B, T, D), got ", u.sizes());
  TORCH_CHECK(delta.sizes() == u.sizes(), "selective_scan: delta must be ", u.sizes(), " like u, got ", delta.sizes());
  TORCH_CHECK(A.dim() == 2 && A.size(0) == u.size(2), "selective_scan: A must be (D, N) with D = ", u.size(2),
              ", got ", A.sizes());
  const std::vector<int64_t> bc = {u.size(0), u.size(1), A.size(1)};
  TORCH_CHECK(B.sizes() == at::IntArrayRef(bc), "selective_scan: B must be ", at::IntArrayRef(bc), ", got ", B.sizes());
  TORCH_CHECK(C.sizes() == at::IntArrayRef(bc), "selective_scan: C must be ", at::IntArrayRef(bc), ", got ", C.sizes());
  for (const at::Tensor* t : {&u, &delta, &A, &B, &C})
    TORCH_CHECK(at::isFloatingType(t->scalar_type()), "selective_scan: inputs must be floating point, got ",
                t->scalar_type());
  return {u.size(0), u.size(1), u.size(2), A.size(1)};
}

// The inputs as contiguous arrays of the arithmetic type.
template <typename S>
struct Inputs {
  at::Tensor u, delta, A, B, C;  // owners
  const S *pu, *pd, *pA, *pB, *pC;
  Inputs(const at::Tensor& u_, const at::Tensor& d_, const at::Tensor& A_, const at::Tensor& B_, const at::Tensor& C_,
         at::ScalarType dt)
      : u(u_.to(dt).contiguous()), delta(d_.to(dt).contiguous()), A(A_.to(dt).contiguous()),
        B(B_.to(dt).contiguous()), C(C_.to(dt).contiguous()),
        pu(u.data_ptr<S>()), pd(delta.data_ptr<S>()), pA(A.data_ptr<S>()), pB(B.data_ptr<S>()), pC(C.data_ptr<S>()) {}
};

// The decays exp(Delta[b, t, c] A[c, n]) of the channels [d0, d0 + W) for t in [ts, te), into
// buf ((te - ts), W, N). The exponentials go through ATen's vectorised exp (one call per
// segment: this file is built without the wider instruction sets ATen dispatches to).
template <typename S>
void decays(const Inputs<S>& in, const Dims& m, int64_t b, int64_t d0, int64_t W, int64_t ts, int64_t te, S* buf) {
  for (int64_t t = ts; t < te; ++t) {
    const S* dt = in.pd + (b * m.T + t) * m.D + d0;
    S* out = buf + (t - ts) * W * m.N;
    for (int64_t w = 0; w < W; ++w)
      for (int64_t n = 0; n < m.N; ++n) out[w * m.N + n] = dt[w] * in.pA[(d0 + w) * m.N + n];
  }
  at::from_blob(buf, {(te - ts) * W * m.N}, at::TensorOptions().dtype(c10::CppTypeToScalarType<S>::value)).exp_();
}

// sum_n a[n] b[n] with four partial sums (independent chains; the order is fixed).
template <typename S>
inline S dot(const S* a, const S* b, int64_t n) {
  S p[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) p[k] += a[i + k] * b[i + k];
  for (; i < n; ++i) p[0] += a[i] * b[i];
  return (p[0] + p[1]) + (p[2] + p[3]);
}

// One step of the recurrence for the channels [d0, d0 + W) of batch row b at time t; h (W, N),
// decay (W, N) = exp(Delta_t A). Writes y when y_out is given.
template <typename S>
inline void step_chunk(const Inputs<S>& in, const Dims& m, int64_t b, int64_t t, int64_t d0, int64_t W,
                       const S* decay, S* h, S* y_out) {
  const int64_t row = (b * m.T + t);
  const S* ut = in.pu + row * m.D + d0;
  const S* dt = in.pd + row * m.D + d0;
  const S* Bt = in.pB + row * m.N;
  const S* Ct = in.pC + row * m.N;
  for (int64_t w = 0; w < W; ++w) {
    const S dx = dt[w] * ut[w];
    const S* aw = decay + w * m.N;
    S* hw = h + w * m.N;
    for (int64_t n = 0; n < m.N; ++n) hw[n] = aw[n] * hw[n] + dx * Bt[n];
    if (y_out) y_out[row * m.D + d0 + w] = dot(hw, Ct, m.N);
  }
}

// h <- the state after [ts, te) from the state before it, decays computed into `dec`; the
// states after each step go to `states` ((te - ts), W, N) when given, y to y_out when given.
template <typename S>
void run_segment(const Inputs<S>& in, const Dims& m, int64_t b, int64_t d0, int64_t W, int64_t ts, int64_t te,
                 S* dec, S* h, S* states, S* y_out) {
  const int64_t WN = W * m.N;
  decays(in, m, b, d0, W, ts, te, dec);
  for (int64_t t = ts; t < te; ++t) {
    step_chunk(in, m, b, t, d0, W, dec + (t - ts) * WN, h, y_out);
    if (states) std::copy(h, h + WN, states + (t - ts) * WN);
  }
}

// Forward over all tasks; h0 / h_last (B, D, N) optional.
template <typename S>
void forward_impl(const Inputs<S>& in, const Dims& m, S* y, const S* h0, S* h_last) {
  at::parallel_for(0, m.tasks(), 1, [&](int64_t t0, int64_t t1) {
    std::vector<S> h, dec;
    for (int64_t task = t0; task < t1; ++task) {
      const int64_t b = task / m.chunks(), d0 = (task % m.chunks()) * kChannels;
      const int64_t W = std::min(kChannels, m.D - d0);
      const int64_t off = (b * m.D + d0) * m.N;  // (b, d0, 0) in a (B, D, N) state
      h.assign(static_cast<size_t>(W * m.N), S(0));
      dec.resize(static_cast<size_t>(kSegment * W * m.N));
      if (h0) std::copy(h0 + off, h0 + off + W * m.N, h.begin());
      for (int64_t ts = 0; ts < m.T; ts += kSegment)
        run_segment(in, m, b, d0, W, ts, std::min(m.T, ts + kSegment), dec.data(), h.data(), static_cast<S*>(nullptr), y);
      if (h_last) std::copy(h.begin(), h.end(), h_last + off);
    }
  });
}

// Gradients. du, ddelta (B, T, D) written per task; dA_part (B, D, N), dB_part and dC_part
// (chunks, B, T, N): each task writes only its own slice, the caller sums the partials.
template <typename S>
void backward_impl(const Inputs<S>& in, const Dims& m, const S* dy, S* du, S* ddelta, S* dA_part, S* dB_part,
                   S* dC_part) {
  const int64_t segs = (m.T + kSegment - 1) / kSegment;
  at::parallel_for(0, m.tasks(), 1, [&](int64_t task0, int64_t task1) {
    std::vector<S> h, ck, hs, g, dec, tmp(static_cast<size_t>(2 * m.N));
    for (int64_t task = task0; task < task1; ++task) {
      const int64_t b = task / m.chunks(), c = task % m.chunks(), d0 = c * kChannels;
      const int64_t W = std::min(kChannels, m.D - d0);
      const int64_t WN = W * m.N;
      // 1. forward, keeping the state before each segment: ck[s] = h_{s K - 1}
      h.assign(static_cast<size_t>(WN), S(0));
      ck.resize(static_cast<size_t>(segs * WN));
      dec.resize(static_cast<size_t>(kSegment * WN));
      for (int64_t s = 0; s < segs; ++s) {
        std::copy(h.begin(), h.end(), ck.begin() + s * WN);
        run_segment(in, m, b, d0, W, s * kSegment, std::min(m.T, (s + 1) * kSegment), dec.data(), h.data(),
                    static_cast<S*>(nullptr), static_cast<S*>(nullptr));
      }
      // 2. segments in reverse: rebuild h_t for the segment, then walk it backwards.
      g.assign(static_cast<size_t>(WN), S(0));  // dL/dh_t carried from later positions
      hs.resize(static_cast<size_t>(kSegment * WN));
      S* dA = dA_part + (b * m.D + d0) * m.N;
      std::fill(dA, dA + WN, S(0));
      S* dBc = dB_part + c * m.batch * m.T * m.N;
      S* dCc = dC_part + c * m.batch * m.T * m.N;
      for (int64_t s = segs - 1; s >= 0; --s) {
        const int64_t ts = s * kSegment, te = std::min(m.T, ts + kSegment);
        std::copy(ck.begin() + s * WN, ck.begin() + (s + 1) * WN, h.begin());
        run_segment(in, m, b, d0, W, ts, te, dec.data(), h.data(), hs.data(), static_cast<S*>(nullptr));
        for (int64_t t = te - 1; t >= ts; --t) {
          const S* ht = hs.data() + (t - ts) * WN;                                   // h_t (W, N)
          const S* hp = t > ts ? hs.data() + (t - 1 - ts) * WN : ck.data() + s * WN;  // h_{t-1}
          const S* at = dec.data() + (t - ts) * WN;                                  // exp(Delta_t A)
          const int64_t row = b * m.T + t;
          const S* ut = in.pu + row * m.D + d0;
          const S* dt = in.pd + row * m.D + d0;
          const S* Bt = in.pB + row * m.N;
          const S* Ct = in.pC + row * m.N;
          S* dBt = dBc + row * m.N;
          S* dCt = dCc + row * m.N;
          std::fill(dBt, dBt + m.N, S(0));
          std::fill(dCt, dCt + m.N, S(0));
          for (int64_t w = 0; w < W; ++w) {
            const S gy = dy[row * m.D + d0 + w];
            const S dlt = dt[w], x = ut[w], dx = dlt * x;
            const S* Aw = in.pA + (d0 + w) * m.N;
            const S* aw = at + w * m.N;
            S* gw = g.data() + w * m.N;
            S* dAw = dA + w * m.N;
            // elementwise over n (vectorisable), then two dot products over n
            S* gh = tmp.data();  // dL/dh_t
            S* ga = gh + m.N;    // dL/d(Delta A) through the exp
            const S* hpw = hp + w * m.N;
            const S* htw = ht + w * m.N;
            for (int64_t n = 0; n < m.N; ++n) {
              gh[n] = gw[n] + Ct[n] * gy;
              ga[n] = gh[n] * hpw[n] * aw[n];
              dCt[n] += gy * htw[n];
              dAw[n] += ga[n] * dlt;
              dBt[n] += gh[n] * dx;
              gw[n] = gh[n] * aw[n];  // dL/dh_{t-1} from this step
            }
            const S ga_A = dot(ga, Aw, m.N), gh_B = dot(gh, Bt, m.N);
            du[row * m.D + d0 + w] = dlt * gh_B;
            ddelta[row * m.D + d0 + w] = ga_A + x * gh_B;
          }
        }
      }
    }
  });
}

struct SelectiveScanFn : public torch::autograd::Function<SelectiveScanFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                            const at::Tensor& B, const at::Tensor& C) {
    ctx->save_for_backward({u, delta, A, B, C});
    return selective_scan_with_state(u, delta, A, B, C).y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &u = saved[0], &delta = saved[1], &A = saved[2], &B = saved[3], &C = saved[4];
    const Dims m = check_inputs(u, delta, A, B, C);
    const at::ScalarType dt = compute_dtype({&u, &delta, &A, &B, &C});
    const at::Tensor dy = grads[0].to(dt).contiguous();  // (B, T, D)
    const auto o = at::TensorOptions().dtype(dt);
    at::Tensor du = at::empty({m.batch, m.T, m.D}, o), dd = at::empty({m.batch, m.T, m.D}, o);
    at::Tensor dA = at::empty({m.batch, m.D, m.N}, o);
    at::Tensor dB = at::empty({m.chunks(), m.batch, m.T, m.N}, o), dC = at::empty({m.chunks(), m.batch, m.T, m.N}, o);
    AT_DISPATCH_FLOATING_TYPES(dt, "selective_scan_backward", [&] {
      const Inputs<scalar_t> in(u, delta, A, B, C, dt);
      backward_impl<scalar_t>(in, m, dy.data_ptr<scalar_t>(), du.data_ptr<scalar_t>(), dd.data_ptr<scalar_t>(),
                              dA.data_ptr<scalar_t>(), dB.data_ptr<scalar_t>(), dC.data_ptr<scalar_t>());
    });
    return {du.to(u.scalar_type()), dd.to(delta.scalar_type()), dA.sum(0).to(A.scalar_type()),
            dB.sum(0).to(B.scalar_type()), dC.sum(0).to(C.scalar_type())};
  }
};

}  // namespace

SelectiveScanResult selective_scan_with_state(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                              const at::Tensor& B, const at::Tensor& C, const at::Tensor& h0) {
  const Dims m = check_inputs(u, delta, A, B, C);
  const at::ScalarType dt = compute_dtype({&u, &delta, &A, &B, &C});
  if (h0.defined())
    TORCH_CHECK(h0.dim() == 3 && h0.size(0) == m.batch && h0.size(1) == m.D && h0.size(2) == m.N,
                "selective_scan: h0 must be (", m.batch, ", ", m.D, ", ", m.N, "), got ", h0.sizes());
  if (!u.device().is_cpu()) {  // the per-step form, one step of the decoder per position
    at::NoGradGuard no_grad;
    at::Tensor h = h0.defined() ? h0.to(dt).clone() : at::zeros({m.batch, m.D, m.N}, u.options().dtype(dt));
    std::vector<at::Tensor> ys;
    for (int64_t t = 0; t < m.T; ++t)
      ys.push_back(selective_scan_step(h, u.select(1, t), delta.select(1, t), A, B.select(1, t), C.select(1, t)));
    return {m.T > 0 ? at::stack(ys, 1) : at::empty({m.batch, 0, m.D}, u.options().dtype(dt)), h};
  }
  const auto o = at::TensorOptions().dtype(dt);
  at::Tensor y = at::empty({m.batch, m.T, m.D}, o);
  at::Tensor h_last = at::empty({m.batch, m.D, m.N}, o);
  const at::Tensor h0c = h0.defined() ? h0.to(dt).contiguous() : at::Tensor();
  AT_DISPATCH_FLOATING_TYPES(dt, "selective_scan_forward", [&] {
    const Inputs<scalar_t> in(u, delta, A, B, C, dt);
    forward_impl<scalar_t>(in, m, y.data_ptr<scalar_t>(), h0c.defined() ? h0c.data_ptr<scalar_t>() : nullptr,
                           h_last.data_ptr<scalar_t>());
  });
  return {y, h_last};
}

at::Tensor selective_scan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                          const at::Tensor& C) {
  check_inputs(u, delta, A, B, C);
  if (!u.device().is_cpu()) return ref::selective_scan(u, delta, A, B, C);
  return SelectiveScanFn::apply(u, delta, A, B, C);
}

at::Tensor selective_scan_step(at::Tensor& h, const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                               const at::Tensor& B, const at::Tensor& C) {
  TORCH_CHECK(h.dim() == 3 && u.dim() == 2 && delta.sizes() == u.sizes() && B.dim() == 2 && C.sizes() == B.sizes(),
              "selective_scan_step: h (B, D, N), u and delta (B, D), B and C (B, N) expected, got h ", h.sizes(),
              ", u ", u.sizes(), ", B ", B.sizes());
  const at::ScalarType dt = h.scalar_type();
  const at::Tensor d = delta.to(dt), x = u.to(dt);
  const at::Tensor decay = at::exp(d.unsqueeze(2) * A.to(dt));                 // (B, D, N)
  h.mul_(decay).add_((d * x).unsqueeze(2) * B.to(dt).unsqueeze(1));            // (B, D, N)
  return (h * C.to(dt).unsqueeze(1)).sum(2);                                    // (B, D)
}

}  // namespace pha::kernels
