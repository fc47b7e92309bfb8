// Sound initialisation at paper scale: every 90M / 125M / 180M preset (GPT-2 vocabulary) is
// built on the CPU and run on one short sequence; its step-0 loss is within 10% of ln V. Label
// slow: building the twelve models takes about a minute on 2 cores (the init's random draws).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "init_loss_util.h"
#include "model/presets.h"

namespace pha::model {
namespace {

TEST(InitLoss, EveryPaperScalePresetStartsNearLnV) {
  int checked = 0;
  for (const auto& name : preset_names()) {
    const ModelConfig c = preset(name);
    if (c.vocab_size != kGpt2VocabSize) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const double loss = testing::step0_loss(c, 1, 32, 3);
    EXPECT_LE(testing::relative_to_ln_v(c, loss), 0.10) << name << ": step-0 loss " << loss;
    std::printf("%s: step-0 loss %.4f (ln V %.4f), %.1f s\n", name.c_str(), loss, std::log(double(c.vocab_size)),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

}  // namespace
}  // namespace pha::model
