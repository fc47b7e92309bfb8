// The run-time kernel selection (kernels/common/kernel_select.h): its parsing, and a whole
// model's loss and gradients with the fused kernels against the references (the unfused ATen
// forms), op by op, in fp32 on the pha-tiny preset. docs/model.md, "Reference kernels".
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include <torch/types.h>

#include "common/kernel_select.h"
#include "nn/pha_model.h"
#include "model/presets.h"

namespace pha::nn {
namespace {

struct Selection {  // restores the process's selection when a test ends
  std::string saved = kernels::kernel_selection();
  ~Selection() { kernels::select_kernels(saved); }
};

TEST(KernelSelect, ParsesEveryFormAndRefusesOthersNamingWhatIsAllowed) {
  Selection keep;
  kernels::select_kernels("reference");
  EXPECT_EQ(kernels::kernel_selection(), "reference");
  EXPECT_TRUE(kernels::reference_kernel(kernels::KernelOp::AdamW));
  kernels::select_kernels("reference:mix_norm,attention");
  EXPECT_EQ(kernels::kernel_selection(), "reference:attention,mix_norm");
  EXPECT_TRUE(kernels::reference_kernel(kernels::KernelOp::Attention));
  EXPECT_FALSE(kernels::reference_kernel(kernels::KernelOp::GssConv));
  for (const char* bad : {"refrence", "reference:", "reference:attention,fft"}) {
    try {
      kernels::select_kernels(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("allowed"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(kernels::kernel_selection(), "reference:attention,mix_norm") << "a refused value changes nothing";
  kernels::select_kernels("fused");
  EXPECT_EQ(kernels::kernel_selection(), "fused");
}

struct LossAndGrads {
  double loss = 0.0;
  std::vector<at::Tensor> grads;
};

LossAndGrads loss_of(nn::PhaModel& model, const at::Tensor& tokens) {
  model->zero_grad();
  const at::Tensor logits = model(tokens.narrow(1, 0, tokens.size(1) - 1));
  const at::Tensor loss = at::nll_loss(at::log_softmax(logits.flatten(0, 1), -1), tokens.narrow(1, 1, tokens.size(1) - 1).flatten());
  loss.backward();
  LossAndGrads out;
  out.loss = loss.item<double>();
  for (const auto& p : model->parameters()) out.grads.push_back(p.grad().defined() ? p.grad().clone() : at::zeros_like(p));
  return out;
}

double max_grad_rel(const LossAndGrads& a, const LossAndGrads& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.grads.size(); ++i) {
    const double scale = std::max(b.grads[i].abs().max().item<double>(), 1e-8);
    worst = std::max(worst, (a.grads[i] - b.grads[i]).abs().max().item<double>() / scale);
  }
  return worst;
}

// pha-tiny (4 layers, d 128, GSS + attention + FFN in every layer), B 2, T 128, fp32: the loss
// with every reference kernel within 1e-5 relative of the fused one, and with each op's
// reference alone; the gradients within 1e-3 of their largest entry per tensor.
TEST(ReferenceKernels, AWholeModelsLossAgreesWithTheFusedKernelsInFp32) {
  Selection keep;
  at::manual_seed(7);
  model::ModelConfig cfg = model::preset("pha-tiny");
  cfg.vocab_size = 260;
  nn::PhaModel model(cfg);
  model->to(at::kFloat);
  const at::Tensor tokens = at::randint(0, 260, {2, 129}, at::kLong);
  kernels::select_kernels("fused");
  const LossAndGrads fused = loss_of(model, tokens);
  kernels::select_kernels("reference");
  const LossAndGrads reference = loss_of(model, tokens);
  EXPECT_LE(std::abs(fused.loss - reference.loss) / reference.loss, 1e-5)
      << "fused " << fused.loss << " reference " << reference.loss;
  EXPECT_LE(max_grad_rel(fused, reference), 1e-3);
  for (const char* op : {"attention", "gss_conv", "rope_cosine", "mix_norm"}) {
    kernels::select_kernels(std::string("reference:") + op);
    const LossAndGrads one = loss_of(model, tokens);
    EXPECT_LE(std::abs(fused.loss - one.loss) / reference.loss, 1e-5) << op << ": " << one.loss << " vs " << fused.loss;
    std::printf("reference %-12s loss %.9f (fused %.9f, |diff| %.3g)\n", op, one.loss, fused.loss,
                std::abs(one.loss - fused.loss));
  }
}

}  // namespace
}  // namespace pha::nn
