#include "nn/lens_probe.h"

#include <limits>
#include <string>

#include <torch/types.h>

#include "core/error.h"
#include "gss_conv/gss_conv.h"

namespace pha::nn {

namespace {

std::vector<float> to_floats(const at::Tensor& t) {
  const at::Tensor c = t.detach().to(at::kCPU, at::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// Clears every hook the pass set, whatever happens.
struct HookGuard {
  PhaModelImpl& model;
  ~HookGuard() {
    for (const auto& block : model.blocks()) {
      for (const auto& s : block->sublayers()) {
        s.ptr()->set_lens(nullptr);
        if (s->attn) s.ptr()->attn->set_capture_head(-1);
      }
    }
  }
};

}  // namespace

model::LensPassResult lens_pass(PhaModelImpl& model, const at::Tensor& tokens, const at::Tensor& targets,
                         const model::LensPassRequest& request) {
  const auto& blocks = model.blocks();
  const int L = static_cast<int>(blocks.size());
  for (const auto& [layer, branch] : request.knockouts) {
    if (layer < -1 || layer >= L)
      throw core::Error("--layer", "layer " + std::to_string(layer) + " does not exist (the model has " + std::to_string(L) +
                                 " layers, 0-" + std::to_string(L - 1) + ")");
    if (branch < 0 || branch >= model::kNumBranches) throw core::Error("--branch", "must be gss, attn or ffn");
  }
  // One SublayerLens per sublayer, in block order.
  std::vector<std::vector<SublayerLens>> hooks(static_cast<size_t>(L));
  HookGuard guard{model};
  for (int l = 0; l < L; ++l) {
    const auto& subs = blocks[static_cast<size_t>(l)]->sublayers();
    hooks[static_cast<size_t>(l)].resize(subs.size());
    for (size_t i = 0; i < subs.size(); ++i) {
      SublayerLens& h = hooks[static_cast<size_t>(l)][i];
      h.probe = request.probe;
      for (const auto& [layer, branch] : request.knockouts)
        if ((layer == -1 || layer == l) && subs[i]->has(static_cast<model::Branch>(branch))) h.knockout[branch] = true;
      subs[i].ptr()->set_lens(&h);
    }
  }
  if (request.attention_layer >= 0) {
    if (request.attention_layer >= L)
      throw core::Error("--layer", "layer " + std::to_string(request.attention_layer) + " does not exist (the model has " +
                                 std::to_string(L) + " layers)");
    AttentionBranchImpl* attn = nullptr;
    for (const auto& s : blocks[static_cast<size_t>(request.attention_layer)]->sublayers())
      if (s->attn && !attn) attn = s.ptr()->attn.get();
    if (!attn)
      throw core::Error("--layer", "layer " + std::to_string(request.attention_layer) +
                                 " has no attention branch, so it has no attention map");
    if (request.attention_head < 0 || request.attention_head >= attn->heads())
      throw core::Error("--head", "head " + std::to_string(request.attention_head) + " does not exist (layer " +
                                std::to_string(request.attention_layer) + " has " + std::to_string(attn->heads()) +
                                " query heads, 0-" + std::to_string(attn->heads() - 1) + ")");
    attn->set_capture_head(request.attention_head);
  }

  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const at::Tensor logits = model.forward(tokens);  // (B, T, V)
  if (was_training) model.train();
  model::LensPassResult out;
  out.B = static_cast<int>(tokens.size(0));
  out.T = static_cast<int>(tokens.size(1));
  out.layers = L;
  // The loss exactly as Trainer::eval_loss computes it: log_softmax in fp32, then the NLL.
  const at::Tensor flat_targets = targets.reshape({-1});
  const at::Tensor logp = at::log_softmax(logits.reshape({-1, logits.size(-1)}).to(at::kFloat), 1);
  const at::Tensor counted = flat_targets.ne(-100);
  const at::Tensor nll = at::nll_loss(logp, flat_targets, {}, at::Reduction::None, -100)
                             .masked_fill(counted.logical_not(), std::numeric_limits<float>::quiet_NaN());
  out.nll = to_floats(nll);
  if (request.probe) {
    out.contribution.resize(static_cast<size_t>(L));
    out.normed_ms.resize(static_cast<size_t>(L));
    for (int l = 0; l < L; ++l) {
      for (const SublayerLens& h : hooks[static_cast<size_t>(l)]) {
        for (int b = 0; b < model::kNumBranches; ++b) {
          if (!h.contribution[b].defined()) continue;
          out.contribution[static_cast<size_t>(l)][b] = to_floats(h.contribution[b]);
          out.normed_ms[static_cast<size_t>(l)][b] = to_floats(h.normed_ms[b]);
        }
      }
    }
  }
  if (request.attention_layer >= 0) {
    for (const auto& s : blocks[static_cast<size_t>(request.attention_layer)]->sublayers()) {
      if (s->attn && s->attn->captured().defined()) {
        out.attention = to_floats(s->attn->captured());
        break;
      }
    }
  }
  return out;
}

std::vector<model::FloatMatrix> gss_impulse_responses(const PhaModelImpl& model, int64_t T) {
  torch::NoGradGuard no_grad;
  std::vector<model::FloatMatrix> out;
  for (const auto& block : model.blocks()) {
    model::FloatMatrix m;
    for (const auto& s : block->sublayers()) {
      if (!s->gss) continue;
      const GssBranchImpl& g = *s->gss;
      at::Tensor k = g.kernel(T).to(at::kFloat).clone();  // (H, T)
      k.select(1, 0).add_(g.d.to(at::kFloat));             // y_0 = K_0 z_0 + D z_0
      m.rows = static_cast<int>(k.size(0));
      m.cols = static_cast<int>(k.size(1));
      m.values = to_floats(k);
      break;
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace pha::nn
