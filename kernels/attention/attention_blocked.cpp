// Query-blocked causal attention with recompute in backward (flash-attention's memory shape,
// written with batched GEMMs). GQA without copies of K/V per query head: the r = Hq/G query
// heads of a group are stacked as rows, so one bmm per group serves them all.
//   grouped layouts: qg, og (B*G, T*r, hd) with row t*r + j; kg, vg (B*G, S, hd)
#include "attention/attention_blocked.h"

#include <algorithm>
#include <limits>
#include <vector>

#include <torch/csrc/autograd/custom_function.h>

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct Dims {
  int64_t B, T, S, Hq, G, r, hd, offset;
};

// Batched products as a loop of GEMMs on the CPU. LibTorch's CPU bmm for these shapes (a few
// dozen batches of (T*r x hd) x (hd x S)) runs at a quarter of the rate of the same products
// issued one at a time through at::mm (measured: 18 against 85 GFLOP/s for (16, 1024, 32) x
// (16, 32, 512), docs/performance.md), so the CPU path calls the BLAS GEMM per batch. CUDA
// tensors keep the batched call.
void bmm_into(at::Tensor out, const at::Tensor& a, const at::Tensor& b) {  // out = a @ b
  if (!a.device().is_cpu()) {
    at::bmm_out(out, a, b);
    return;
  }
  for (int64_t i = 0; i < a.size(0); ++i) {
    at::Tensor o = out.select(0, i);
    at::mm_out(o, a.select(0, i), b.select(0, i));
  }
}
at::Tensor batched_mm(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = at::empty({a.size(0), a.size(1), b.size(2)}, a.options());
  bmm_into(out, a, b);
  return out;
}
void bmm_accumulate(at::Tensor out, const at::Tensor& a, const at::Tensor& b) {  // out += a @ b
  if (!a.device().is_cpu()) {
    out.baddbmm_(a, b);
    return;
  }
  for (int64_t i = 0; i < a.size(0); ++i) out.select(0, i).addmm_(a.select(0, i), b.select(0, i));
}

Dims dims_of(const at::Tensor& q, const at::Tensor& k) {
  Dims d{q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), 0, q.size(3), 0};
  d.r = d.Hq / d.G;
  d.offset = d.S - d.T;
  return d;
}

at::Tensor group_queries(const at::Tensor& x, const Dims& d) {  // (B,T,Hq,hd) -> (BG, T*r, hd)
  return x.reshape({d.B, d.T, d.G, d.r, d.hd}).permute({0, 2, 1, 3, 4}).reshape({d.B * d.G, d.T * d.r, d.hd});
}
at::Tensor ungroup_queries(const at::Tensor& x, const Dims& d) {  // inverse of group_queries
  return x.view({d.B, d.G, d.T, d.r, d.hd}).permute({0, 2, 1, 3, 4}).reshape({d.B, d.T, d.Hq, d.hd});
}
at::Tensor group_keys(const at::Tensor& x, const Dims& d) {  // (B,S,G,hd) -> (BG, S, hd)
  return x.permute({0, 2, 1, 3}).reshape({d.B * d.G, d.S, d.hd});
}
at::Tensor ungroup_keys(const at::Tensor& x, const Dims& d) {
  return x.view({d.B, d.G, d.S, d.hd}).permute({0, 2, 1, 3}).contiguous();
}

// Scores of query rows [t0, t1) against keys [0, ke), causal entries set to -inf.
// Returns (BG, (t1-t0)*r, ke). Only the last (t1 - t0) key columns can be masked.
at::Tensor block_scores(const at::Tensor& qb, const at::Tensor& kb, const Dims& d, int64_t t0,
                        int64_t t1) {
  const int64_t ke = kb.size(1), nb = t1 - t0;
  at::Tensor s = batched_mm(qb, kb.transpose(1, 2));  // (BG, nb*r, ke)
  const int64_t c0 = d.offset + t0;                // row i sees keys <= c0 + i
  if (c0 + 1 < ke) {
    const auto opts = at::TensorOptions().dtype(at::kLong).device(qb.device());
    const at::Tensor key = at::arange(ke - c0, opts).view({1, ke - c0});
    const at::Tensor row = at::arange(nb, opts).view({nb, 1});
    const at::Tensor mask = (key > row).view({1, nb, 1, ke - c0});  // (1, nb, 1, ke - c0)
    s.view({s.size(0), nb, d.r, ke}).narrow(3, c0, ke - c0).masked_fill_(mask, -std::numeric_limits<double>::infinity());
  }
  return s;
}

int64_t probability_bytes(const Dims& d, int64_t block, int64_t elem) {
  int64_t total = 0;
  for (int64_t t0 = 0; t0 < d.T; t0 += block) {
    const int64_t t1 = std::min(d.T, t0 + block);
    total += d.B * d.G * (t1 - t0) * d.r * (d.offset + t1) * elem;
  }
  return total;
}

struct BlockedAttentionFn : public torch::autograd::Function<BlockedAttentionFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                            const at::Tensor& v, int64_t block, int64_t mode) {
    const Dims d = dims_of(q, k);
    const auto m = static_cast<AttentionBackward>(mode);
    const bool keep_p = m == AttentionBackward::SaveProbabilities ||
                        (m == AttentionBackward::Auto &&
                         probability_bytes(d, block, q.element_size()) <= kSaveProbabilitiesBytes);
    const at::Tensor qg = group_queries(q, d);  // (BG, T*r, hd)
    const at::Tensor kg = group_keys(k, d);     // (BG, S, hd)
    const at::Tensor vg = group_keys(v, d);     // (BG, S, hd)
    at::Tensor og = at::empty_like(qg);         // (BG, T*r, hd)
    at::Tensor lse;                             // (BG, T*r), only when recomputing
    if (!keep_p) lse = at::empty({d.B * d.G, d.T * d.r}, qg.options());
    std::vector<at::Tensor> saved = {qg, kg, vg, og, lse};
    for (int64_t t0 = 0; t0 < d.T; t0 += block) {
      const int64_t t1 = std::min(d.T, t0 + block), ke = d.offset + t1;
      const int64_t r0 = t0 * d.r, nr = (t1 - t0) * d.r;
      const at::Tensor s = block_scores(qg.narrow(1, r0, nr), kg.narrow(1, 0, ke), d, t0, t1);
      const at::Tensor p = at::softmax(s, -1);  // (BG, nr, ke)
      if (keep_p) {
        saved.push_back(p);
      } else {
        lse.narrow(1, r0, nr).copy_(at::logsumexp(s, -1));
      }
      bmm_into(og.narrow(1, r0, nr), p, vg.narrow(1, 0, ke));
    }
    ctx->save_for_backward(saved);
    ctx->saved_data["block"] = block;
    ctx->saved_data["T"] = d.T;
    ctx->saved_data["Hq"] = d.Hq;
    return ungroup_queries(og, d);  // (B, T, Hq, hd)
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &qg = saved[0], &kg = saved[1], &vg = saved[2], &og = saved[3], &lse = saved[4];
    const bool keep_p = saved.size() > 5;
    const int64_t block = ctx->saved_data["block"].toInt();
    Dims d{0, ctx->saved_data["T"].toInt(), kg.size(1), ctx->saved_data["Hq"].toInt(), 0, 0,
           qg.size(2), 0};
    d.r = qg.size(1) / d.T;
    d.G = d.Hq / d.r;
    d.B = qg.size(0) / d.G;
    d.offset = d.S - d.T;
    const at::Tensor dog = group_queries(grad_out[0], d);  // (BG, T*r, hd)
    at::Tensor delta;                                      // (BG, T*r, 1), recompute path
    if (!keep_p) delta = (dog * og).sum(-1, /*keepdim=*/true);
    at::Tensor dqg = at::empty_like(qg);
    at::Tensor dkg = at::zeros_like(kg);
    at::Tensor dvg = at::zeros_like(vg);
    size_t blk = 0;
    for (int64_t t0 = 0; t0 < d.T; t0 += block, ++blk) {
      const int64_t t1 = std::min(d.T, t0 + block), ke = d.offset + t1;
      const int64_t r0 = t0 * d.r, nr = (t1 - t0) * d.r;
      const at::Tensor qb = qg.narrow(1, r0, nr), dob = dog.narrow(1, r0, nr);
      const at::Tensor kb = kg.narrow(1, 0, ke), vb = vg.narrow(1, 0, ke);
      at::Tensor p;  // (BG, nr, ke)
      if (keep_p) {
        p = saved[5 + blk];
      } else {
        p = block_scores(qb, kb, d, t0, t1);
        p.sub_(lse.narrow(1, r0, nr).unsqueeze(-1)).exp_();
      }
      bmm_accumulate(dvg.narrow(1, 0, ke), p.transpose(1, 2), dob);
      at::Tensor ds = batched_mm(dob, vb.transpose(1, 2));  // (BG, nr, ke) = dP
      if (keep_p) {
        ds = at::_softmax_backward_data(ds, p, -1, p.scalar_type());  // P * (dP - rowsum(dP * P))
      } else {
        ds.sub_(delta.narrow(1, r0, nr)).mul_(p);
      }
      bmm_into(dqg.narrow(1, r0, nr), ds, kb);
      bmm_accumulate(dkg.narrow(1, 0, ke), ds.transpose(1, 2), qb);
    }
    return {ungroup_queries(dqg, d), ungroup_keys(dkg, d), ungroup_keys(dvg, d), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor blocked_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                    int64_t block, AttentionBackward mode) {
  return BlockedAttentionFn::apply(q, k, v, block, static_cast<int64_t>(mode));
}

}  // namespace pha::kernels
