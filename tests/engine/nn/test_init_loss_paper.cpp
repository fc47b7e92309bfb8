// Sound initialisation at paper scale: every 90M / 125M / 180M preset (GPT-2 vocabulary) is
// built on the CPU and run on one short sequence; its step-0 loss is within 10% of ln V. Label
// slow: building the twelve models takes about a minute on 2 cores (the init's random draws).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "init_loss_util.h"
#include "model/presets.h"

namespace pha::nn {
namespace {

TEST(InitLoss, EveryPaperScalePresetStartsNearLnV) {
  int checked = 0;
  for (const auto& name : model::preset_names()) {
    const model::ModelConfig c = model::preset(name);
    if (c.vocab_size != model::kGpt2VocabSize) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const double loss = testing::step0_loss(c, 1, 32, 3);
    // The standard baselines (pre-norm: transformerpp, gpt2) keep the GPT-2 initialisation
    // they are defined with: a tied N(0, 0.02^2) embedding gives the current token an excess
    // logit of about 0.02 d (15 at d 768), so their step-0 loss is above ln V by design
    // (docs/model.md, "Norm placement"); printed, not asserted.
    if (c.pre_norm()) {
      std::printf("%s: step-0 loss %.4f (ln V %.4f; GPT-2 init, not asserted)\n", name.c_str(), loss,
                  std::log(double(c.vocab_size)));
      continue;
    }
    EXPECT_LE(testing::relative_to_ln_v(c, loss), 0.10) << name << ": step-0 loss " << loss;
    std::printf("%s: step-0 loss %.4f (ln V %.4f), %.1f s\n", name.c_str(), loss, std::log(double(c.vocab_size)),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

}  // namespace
}  // namespace pha::nn
