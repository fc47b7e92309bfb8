// Fused branch RMSNorms + mixer + DeepNorm residual + LayerNorm (mix_norm.h). CPU kernel: one
// pass per row forward; backward recomputes the pre-norm row from the saved inputs and the
// row statistics, and reduces the parameter gradients in fixed row chunks (deterministic).
#include "mix_norm/mix_norm.h"
#include "common/kernel_select.h"

#include <cmath>
#include <vector>

#include <ATen/record_function.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "common/row_chunks.h"

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Absent inputs (a branch, a gain, the mixer) travel as empty placeholders: LibTorch 1.13's
// custom functions need every tensor argument defined.
bool absent(const at::Tensor& t) { return t.numel() == 0; }

// Raw views of the inputs for one dtype pair: y_t the branch outputs, x_t the master dtype
// (also the arithmetic type).
template <typename y_t, typename x_t>
struct Rows {
  int64_t rows = 0, d = 0, n = 0;
  bool normed = false;
  const y_t* y[kMaxMixBranches] = {};
  const x_t* g[kMaxMixBranches] = {};
  x_t w[kMaxMixBranches] = {1, 1, 1};
  const x_t *x = nullptr, *lnw = nullptr, *lnb = nullptr;
  x_t alpha = 1, rms_eps = 0, ln_eps = 0;

  // coef[b] = w_b / sqrt(ms_b + eps) (w_b without norm); h = alpha x + sum_b coef_b g_b y_b
  void pre_norm(int64_t r, const x_t* coef, x_t* h) const {
    const x_t* xr = x + r * d;
    for (int64_t i = 0; i < d; ++i) h[i] = alpha * xr[i];
    for (int64_t b = 0; b < n; ++b) {
      const y_t* yr = y[b] + r * d;
      if (normed) {
        for (int64_t i = 0; i < d; ++i) h[i] += coef[b] * g[b][i] * static_cast<x_t>(yr[i]);
      } else {
        for (int64_t i = 0; i < d; ++i) h[i] += coef[b] * static_cast<x_t>(yr[i]);
      }
    }
  }
  void coefs(const x_t* ms_rows, int64_t r, x_t* coef) const {  // ms_rows: (n, rows)
    for (int64_t b = 0; b < n; ++b) coef[b] = normed ? w[b] / std::sqrt(ms_rows[b * rows + r] + rms_eps) : w[b];
  }
};

template <typename y_t, typename x_t>
void forward_impl(const Rows<y_t, x_t>& R, x_t* out, x_t* ms, x_t* mu, x_t* rstd) {
  at::parallel_for(0, R.rows, 16, [&](int64_t r0, int64_t r1) {
    std::vector<x_t> h(R.d);
    x_t coef[kMaxMixBranches];
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t b = 0; b < R.n; ++b) {
        const y_t* yr = R.y[b] + r * R.d;
        x_t ss = 0;
        for (int64_t i = 0; i < R.d; ++i) ss += static_cast<x_t>(yr[i]) * static_cast<x_t>(yr[i]);
        ms[b * R.rows + r] = ss / static_cast<x_t>(R.d);
      }
      R.coefs(ms, r, coef);
      R.pre_norm(r, coef, h.data());
      x_t s = 0;
      for (int64_t i = 0; i < R.d; ++i) s += h[i];
      const x_t m = s / static_cast<x_t>(R.d);
      x_t v = 0;
      for (int64_t i = 0; i < R.d; ++i) v += (h[i] - m) * (h[i] - m);
      const x_t rs = x_t(1) / std::sqrt(v / static_cast<x_t>(R.d) + R.ln_eps);
      mu[r] = m;
      rstd[r] = rs;
      x_t* o = out + r * R.d;
      for (int64_t i = 0; i < R.d; ++i) o[i] = (h[i] - m) * rs * R.lnw[i] + R.lnb[i];
    }
  });
}

// Partial sums of one chunk, laid out [dln_w (d) | dln_b (d) | dg_0..dg_{n-1} (n*d) | dw (n)].
template <typename y_t, typename x_t>
void backward_impl(const Rows<y_t, x_t>& R, const x_t* ms, const x_t* mu, const x_t* rstd, const x_t* dout,
                   y_t* const* dy, x_t* dx, x_t* partial, int64_t width) {
  const int64_t d = R.d;
  detail::for_row_chunks(R.rows, [&](int64_t chunk, int64_t r0, int64_t r1) {
    std::vector<x_t> h(d), dh(d);
    x_t coef[kMaxMixBranches];
    x_t* P = partial + chunk * width;
    for (int64_t r = r0; r < r1; ++r) {
      R.coefs(ms, r, coef);
      R.pre_norm(r, coef, h.data());
      const x_t* go = dout + r * d;
      x_t m1 = 0, m2 = 0;
      for (int64_t i = 0; i < d; ++i) {
        const x_t xhat = (h[i] - mu[r]) * rstd[r];
        h[i] = xhat;  // h now holds x_hat
        const x_t dxhat = go[i] * R.lnw[i];
        m1 += dxhat;
        m2 += dxhat * xhat;
        P[i] += go[i] * xhat;
        P[d + i] += go[i];
      }
      m1 /= static_cast<x_t>(d);
      m2 /= static_cast<x_t>(d);
      x_t* dxr = dx + r * d;
      for (int64_t i = 0; i < d; ++i) {
        dh[i] = rstd[r] * (go[i] * R.lnw[i] - m1 - h[i] * m2);
        dxr[i] = R.alpha * dh[i];
      }
      for (int64_t b = 0; b < R.n; ++b) {
        const y_t* yr = R.y[b] + r * d;
        y_t* dyr = dy[b] + r * d;
        x_t* dg = P + 2 * d + b * d;
        x_t dw = 0;
        if (!R.normed) {
          for (int64_t i = 0; i < d; ++i) {
            dw += dh[i] * static_cast<x_t>(yr[i]);
            dyr[i] = static_cast<y_t>(R.w[b] * dh[i]);
          }
        } else {
          // n_i = g_i y_i q with q = (ms + eps)^(-1/2): dy_j = w (q a_j - q^3 y_j (a . y) / d), a = g dh
          const x_t q = x_t(1) / std::sqrt(ms[b * R.rows + r] + R.rms_eps);
          x_t ay = 0;
          for (int64_t i = 0; i < d; ++i) {
            const x_t yi = static_cast<x_t>(yr[i]);
            ay += R.g[b][i] * dh[i] * yi;
            dg[i] += R.w[b] * dh[i] * q * yi;
          }
          dw = ay * q;
          const x_t k = q * q * q * ay / static_cast<x_t>(d);
          for (int64_t i = 0; i < d; ++i) {
            const x_t yi = static_cast<x_t>(yr[i]);
            dyr[i] = static_cast<y_t>(R.w[b] * (q * R.g[b][i] * dh[i] - k * yi));
          }
        }
        P[2 * d + R.n * d + b] += dw;
      }
    }
  });
}

template <typename y_t, typename x_t>
Rows<y_t, x_t> rows_of(const std::vector<at::Tensor>& ys, const std::vector<at::Tensor>& gs, const at::Tensor& mix,
                       const at::Tensor& x, const at::Tensor& lnw, const at::Tensor& lnb, double alpha, double rms_eps,
                       double ln_eps) {
  Rows<y_t, x_t> R;
  R.d = x.size(-1);
  R.rows = x.numel() / R.d;
  R.n = static_cast<int64_t>(ys.size());
  R.normed = !gs.empty();
  const at::Tensor w = !absent(mix) ? mix.detach().to(at::kCPU, at::kDouble).contiguous() : at::Tensor();
  for (int64_t b = 0; b < R.n; ++b) {
    R.y[b] = ys[b].data_ptr<y_t>();
    if (R.normed) R.g[b] = gs[b].data_ptr<x_t>();
    R.w[b] = w.defined() ? static_cast<x_t>(w.data_ptr<double>()[b]) : x_t(1);
  }
  R.x = x.data_ptr<x_t>();
  R.lnw = lnw.data_ptr<x_t>();
  R.lnb = lnb.data_ptr<x_t>();
  R.alpha = static_cast<x_t>(alpha);
  R.rms_eps = static_cast<x_t>(rms_eps);
  R.ln_eps = static_cast<x_t>(ln_eps);
  return R;
}

// Runs the lambda with y_t (branch dtype) and x_t (master dtype) set, for the pairs the CPU
// kernel has (as AT_DISPATCH does for one dtype).
#define PHA_DISPATCH_MIX_TYPES(Y, X, NAME, ...)                                                        \
  [&] {                                                                                                \
    if ((X) == at::kFloat && (Y) == at::kFloat) {                                                      \
      using y_t = float;                                                                               \
      using x_t = float;                                                                               \
      return __VA_ARGS__();                                                                            \
    }                                                                                                  \
    if ((X) == at::kFloat && (Y) == at::kBFloat16) {                                                   \
      using y_t = c10::BFloat16;                                                                       \
      using x_t = float;                                                                               \
      return __VA_ARGS__();                                                                            \
    }                                                                                                  \
    if ((X) == at::kDouble && (Y) == at::kDouble) {                                                    \
      using y_t = double;                                                                              \
      using x_t = double;                                                                              \
      return __VA_ARGS__();                                                                            \
    }                                                                                                  \
    TORCH_CHECK(false, NAME ": no CPU kernel for branch dtype ", (Y), " with master dtype ", (X));    \
  }()

std::vector<at::Tensor> present(std::initializer_list<at::Tensor> ts) {
  std::vector<at::Tensor> out;
  for (const auto& t : ts)
    if (!absent(t)) out.push_back(t.contiguous());
  return out;
}

struct MixNormFn : public torch::autograd::Function<MixNormFn> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& y0, const at::Tensor& y1, const at::Tensor& y2,
                               const at::Tensor& g0, const at::Tensor& g1, const at::Tensor& g2, const at::Tensor& mix,
                               const at::Tensor& x_in, const at::Tensor& lnw_in, const at::Tensor& lnb_in,
                               double alpha, double rms_eps, double ln_eps) {
    RECORD_FUNCTION("pha::mix_residual_norm", std::vector<c10::IValue>());  // named in --trace files
    const std::vector<at::Tensor> ys = present({y0, y1, y2}), gs = present({g0, g1, g2});
    const at::Tensor x = x_in.contiguous(), lnw = lnw_in.contiguous(), lnb = lnb_in.contiguous();
    const int64_t d = x.size(-1), rows = x.numel() / d, n = static_cast<int64_t>(ys.size());
    at::Tensor out = at::empty_like(x, at::MemoryFormat::Contiguous);
    at::Tensor ms = at::empty({n, rows}, x.options()), stats = at::empty({2, rows}, x.options());  // mu, rstd
    PHA_DISPATCH_MIX_TYPES(ys[0].scalar_type(), x.scalar_type(), "mix_residual_norm", [&] {
      const auto R = rows_of<y_t, x_t>(ys, gs, mix, x, lnw, lnb, alpha, rms_eps, ln_eps);
      forward_impl<y_t, x_t>(R, out.data_ptr<x_t>(), ms.data_ptr<x_t>(), stats.data_ptr<x_t>(),
                             stats.data_ptr<x_t>() + rows);
    });
    ctx->save_for_backward({y0, y1, y2, g0, g1, g2, mix, x, lnw, lnb, ms, stats});
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["rms_eps"] = rms_eps;
    ctx->saved_data["ln_eps"] = ln_eps;
    ctx->mark_non_differentiable({ms});
    return {out, ms};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const std::vector<at::Tensor> ys = present({s[0], s[1], s[2]}), gs = present({s[3], s[4], s[5]});
    const at::Tensor &mix = s[6], &x = s[7], &lnw = s[8], &lnb = s[9], &ms = s[10], &stats = s[11];
    const int64_t d = x.size(-1), rows = x.numel() / d, n = static_cast<int64_t>(ys.size());
    const at::Tensor dout = grads[0].to(x.scalar_type()).contiguous();
    std::vector<at::Tensor> dys;
    for (const auto& y : ys) dys.push_back(at::empty_like(y, at::MemoryFormat::Contiguous));
    at::Tensor dx = at::empty_like(x, at::MemoryFormat::Contiguous);
    const int64_t width = 2 * d + n * d + n;
    at::Tensor partial = at::zeros({detail::row_chunks(rows), width}, x.options());
    PHA_DISPATCH_MIX_TYPES(ys[0].scalar_type(), x.scalar_type(), "mix_residual_norm backward", [&] {
      const auto R = rows_of<y_t, x_t>(ys, gs, mix, x, lnw, lnb, ctx->saved_data["alpha"].toDouble(),
                                       ctx->saved_data["rms_eps"].toDouble(), ctx->saved_data["ln_eps"].toDouble());
      y_t* dy[kMaxMixBranches] = {};
      for (int64_t b = 0; b < n; ++b) dy[b] = dys[b].data_ptr<y_t>();
      const x_t* st = stats.data_ptr<x_t>();
      backward_impl<y_t, x_t>(R, ms.data_ptr<x_t>(), st, st + rows, dout.data_ptr<x_t>(), dy, dx.data_ptr<x_t>(),
                              partial.data_ptr<x_t>(), width);
    });
    const at::Tensor sums = partial.sum(0, /*keepdim=*/false, at::kDouble).to(x.scalar_type());  // (width)
    variable_list out(13);
    for (int64_t b = 0; b < n; ++b) {
      out[b] = dys[b];
      if (!gs.empty()) out[3 + b] = sums.narrow(0, 2 * d + b * d, d);
    }
    if (!absent(mix)) out[6] = sums.narrow(0, 2 * d + n * d, n).to(mix.scalar_type());
    out[7] = dx;
    out[8] = sums.narrow(0, 0, d);
    out[9] = sums.narrow(0, d, d);
    return out;
  }
};

void check_inputs(const MixNormInputs& in) {
  const int64_t n = static_cast<int64_t>(in.ys.size());
  TORCH_CHECK(n >= 1 && n <= kMaxMixBranches, "mix_residual_norm: 1 to ", kMaxMixBranches, " branches, got ", n);
  TORCH_CHECK(in.x.dim() >= 1, "mix_residual_norm: x must be (..., d)");
  const int64_t d = in.x.size(-1);
  for (const auto& y : in.ys) {
    TORCH_CHECK(y.sizes() == in.x.sizes(), "mix_residual_norm: branch output ", y.sizes(), " must have x's shape ",
                in.x.sizes());
    TORCH_CHECK(y.scalar_type() == in.ys[0].scalar_type(), "mix_residual_norm: branch outputs must share one dtype");
  }
  TORCH_CHECK(in.gains.empty() || static_cast<int64_t>(in.gains.size()) == n,
              "mix_residual_norm: one gain per branch or none, got ", in.gains.size(), " for ", n, " branches");
  for (const auto& g : in.gains)
    TORCH_CHECK(g.dim() == 1 && g.size(0) == d && g.scalar_type() == in.x.scalar_type(),
                "mix_residual_norm: gains must be (", d, ") in x's dtype");
  TORCH_CHECK(!in.mix.defined() || (in.mix.dim() == 1 && in.mix.size(0) == n),
              "mix_residual_norm: mix must be (", n, ")");
  TORCH_CHECK(in.ln_weight.sizes() == at::IntArrayRef{d} && in.ln_bias.sizes() == at::IntArrayRef{d} &&
                  in.ln_weight.scalar_type() == in.x.scalar_type() && in.ln_bias.scalar_type() == in.x.scalar_type(),
              "mix_residual_norm: LayerNorm weight and bias must be (", d, ") in x's dtype");
}

}  // namespace

MixNormOut mix_residual_norm(const MixNormInputs& in) {
  check_inputs(in);
  const at::ScalarType y = in.ys[0].scalar_type(), x = in.x.scalar_type();
  const bool fused = in.x.device().is_cpu() && ((x == at::kFloat && (y == at::kFloat || y == at::kBFloat16)) ||
                                                (x == at::kDouble && y == at::kDouble));
  if (!fused || reference_kernel(KernelOp::MixNorm)) return ref::mix_residual_norm(in);
  const at::Tensor none = at::empty({0}, in.x.options());
  auto at_or_none = [&](const std::vector<at::Tensor>& v, size_t i) { return i < v.size() ? v[i] : none; };
  const auto out = MixNormFn::apply(at_or_none(in.ys, 0), at_or_none(in.ys, 1), at_or_none(in.ys, 2),
                                    at_or_none(in.gains, 0), at_or_none(in.gains, 1), at_or_none(in.gains, 2),
                                    in.mix.defined() ? in.mix.to(x) : none, in.x, in.ln_weight, in.ln_bias, in.alpha,
                                    in.rms_eps, in.ln_eps);
  return {out[0].view(in.x.sizes()), out[1]};
}

}  // namespace pha::kernels

