// Presets: paper-scale budgets within 3% of their names, CPU-scale companions within 3% of their
// PHA preset (with the table's account of how), the analytic parameter count equal to the built
// module's (whole model, per layer, per branch), and the FLOP / memory accounting's invariants.
#include "model/presets.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "model/flops.h"
#include "nn/pha_model.h"
#include "model/variants.h"

using namespace pha::model;

namespace {

// "pha-125m" -> 125e6; 0 for names without a budget.
double budget_of(const std::string& name) {
  auto dash = name.rfind('-');
  std::string tail = name.substr(dash + 1);
  if (tail.size() < 2 || tail.back() != 'm') return 0;
  return std::stod(tail.substr(0, tail.size() - 1)) * 1e6;
}

void expect_analytic_equals_module(const ModelConfig& c) {
  SCOPED_TRACE(c.name + " (" + c.variant + ")");
  pha::nn::PhaModel model(c);
  const ParamCount pc = count_parameters(c);
  const pha::model::ModelIntrospection in = model->introspect();
  EXPECT_EQ(pc.total, model->num_parameters());
  EXPECT_EQ(pc.embedding, in.embedding_params);
  EXPECT_EQ(pc.head, in.head_params);
  EXPECT_EQ(pc.final_norm, in.final_norm_params);
  ASSERT_EQ(pc.layers.size(), in.layer_params.size());
  for (size_t l = 0; l < pc.layers.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    EXPECT_EQ(pc.layers[l].branches.gss, in.layer_params[l].branch[0]);
    EXPECT_EQ(pc.layers[l].branches.attention, in.layer_params[l].branch[1]);
    EXPECT_EQ(pc.layers[l].branches.ffn, in.layer_params[l].branch[2]);
    EXPECT_EQ(pc.layers[l].norms + pc.layers[l].mixer, in.layer_params[l].norms_and_mixer);
    EXPECT_EQ(pc.layers[l].total, in.layer_params[l].total);
  }
  // Matrix weights of the blocks (what the matmul FLOPs count): every 2-D parameter but the
  // embedding, the head and the SSMs' own (DSS C, S6 A_log).
  int64_t matrices = 0;
  for (const auto& p : model->named_parameters()) {
    if (p.value().dim() == 2 && p.key() != "embed.weight" && p.key() != "pos_embed.weight" && p.key() != "head.weight" &&
        p.key().find(".gss.c") == std::string::npos && p.key().find(".s6.A_log") == std::string::npos) {
      matrices += p.value().numel();
    }
  }
  EXPECT_EQ(pc.matmul, matrices);
}

}  // namespace

TEST(Presets, NamesAreUniqueAndUnknownNamesAreListed) {
  auto names = preset_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const char* n : {"pha-90m", "pha-125m", "pha-180m", "transformer-125m", "sequential-180m",
                        "gss-only-90m", "pha-tiny", "pha-uniform-tiny", "pha-no-gss-tiny", "pha-no-attn-tiny",
                        "pha-no-ffn-tiny", "transformer-tiny", "sequential-tiny", "gss-only-tiny", "pha-d512"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  try {
    preset("pha-7b");
    FAIL() << "no error";
  } catch (const pha::core::Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("unknown preset \"pha-7b\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("pha-125m"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gss-only-tiny"), std::string::npos) << msg;
  }
}

TEST(Presets, PaperScaleBudgetsWithinThreePercent) {
  int checked = 0;
  for (const auto& name : preset_names()) {
    double budget = budget_of(name);
    if (budget == 0) continue;
    EXPECT_EQ(static_cast<double>(preset_budget(name).nominal), budget) << name;  // the table says the same
    ModelConfig c = preset(name);
    double total = static_cast<double>(count_parameters(c).total);
    EXPECT_LE(std::abs(total - budget) / budget, 0.03) << name << ": " << total;
    EXPECT_EQ(c.vocab_size, kGpt2VocabSize) << name;
    EXPECT_EQ(c.context, 1024) << name;
    EXPECT_TRUE(c.tie_embeddings) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 18);  // {pha, sequential, transformer, gss-only, transformerpp, gpt2} x {90m, 125m, 180m}
}

TEST(Presets, DocumentedWidthsOfPha125m) {
  ModelConfig c = preset("pha-125m");
  EXPECT_EQ(c.d_model, 768);
  EXPECT_EQ(c.n_layers, 10);
  EXPECT_EQ(c.attention.heads, 12);
  EXPECT_EQ(c.attention.kv_heads, 4);
  EXPECT_EQ(c.d_ff(), 2048);
  EXPECT_EQ(c.gss_expanded(), 1536);
  EXPECT_EQ(c.gss.reduced, 256);
  EXPECT_EQ(c.gss.state, 256);
  EXPECT_NEAR(count_parameters(c).total / 1e6, 124.6, 0.1);  // the spec's "about 124.6M"
}

TEST(Presets, CpuFamiliesShareWidthAndVocabulary) {
  for (const auto& name : preset_names()) {
    const bool tiny = name.find("-tiny") != std::string::npos, small = name.find("-small") != std::string::npos;
    if (!tiny && !small) continue;
    ModelConfig c = preset(name);
    EXPECT_EQ(c.d_model, tiny ? 128 : 256) << name;
    EXPECT_EQ(c.vocab_size, kByteVocabSize) << name;
    EXPECT_EQ(c.attention.heads, tiny ? 4 : 8) << name;
  }
  double tiny = static_cast<double>(count_parameters(preset("pha-tiny")).total);
  EXPECT_EQ(tiny, 1286172);  // the quickstart's and the tests' model is unchanged
  EXPECT_NEAR(count_parameters(preset("pha-small")).total / 1e6, 5.0, 0.1);
  EXPECT_EQ(preset("pha-uniform-tiny").mixer, MixerMode::Uniform);
  EXPECT_EQ(count_parameters(preset("pha-uniform-tiny")).mixer, 0);
  EXPECT_EQ(count_parameters(preset("pha-tiny")).mixer, 4 * 3);
  EXPECT_EQ(preset("pha-d512").d_model, 512);
}

// Every CPU-scale companion matches its PHA preset within 3%, every variant has a companion in
// both sets, and the dimensions the table says were scaled are exactly those that differ from
// the reference (so `pha model --list` cannot misstate how a budget was met).
TEST(Presets, CompanionSetsMatchTheirPhaPresetWithinThreePercent) {
  for (const char* family : {"tiny", "small"}) {
    const std::string ref = std::string("pha-") + family;
    const ModelConfig r = preset(ref);
    const double target = static_cast<double>(count_parameters(r).total);
    std::set<std::string> variants;
    for (const auto& name : preset_names()) {
      if (name.size() < std::strlen(family) + 1 || name.substr(name.size() - std::strlen(family) - 1) != std::string("-") + family ||
          name == ref)
        continue;
      SCOPED_TRACE(name);
      const PresetBudget b = preset_budget(name);
      EXPECT_EQ(b.reference, ref);
      const ModelConfig c = preset(name);
      const double total = static_cast<double>(count_parameters(c).total);
      EXPECT_LE(std::abs(total - target) / target, 0.03) << total << " vs " << target;
      std::vector<std::string> differing;
      for (const auto& d : preset_dimensions())
        if (preset_dimension(c, d) != preset_dimension(r, d)) differing.push_back(d);
      EXPECT_EQ(differing, b.scaled);
      EXPECT_EQ(c.attention.heads, r.attention.heads);  // nothing else moved
      EXPECT_EQ(c.gss.reduced, r.gss.reduced);
      EXPECT_EQ(c.context, r.context);
      variants.insert(c.variant);
    }
    EXPECT_EQ(variants.size() + 1, known_variants().size()) << family;  // every variant but pha itself
  }
  EXPECT_EQ(preset_budget_text("transformer-tiny"), "pha-tiny +0.3%: depth 4->6, d_ff 512->496");
  EXPECT_EQ(preset_budget_text("pha-tiny"), "reference");
  EXPECT_EQ(preset_budget_text("pha-90m"), "90M +0.2%: depth 6");
}

TEST(Presets, AnalyticCountEqualsModuleCountForEveryTinyPreset) {
  for (const auto& name : preset_names()) {
    if (name.find("tiny") == std::string::npos && name.find("small") == std::string::npos && name != "pha-d512")
      continue;
    expect_analytic_equals_module(preset(name));
  }
}

TEST(Presets, AnalyticCountEqualsModuleCountForPatternsAndOptions) {
  ModelConfig c = make_variant_config("gss,sequential,attn,parallel", 97, 64, 0);
  c.name = "pattern";
  c.tie_embeddings = false;
  c.gss.inner_norm = false;
  c.ffn.aux_ratio = 0;
  expect_analytic_equals_module(c);
  ModelConfig d = preset("pha-no-ffn-tiny");
  d.attention.head_dim = 48;  // head_dim * heads != d_model
  d.attention.kv_heads = 4;
  expect_analytic_equals_module(d);
}

TEST(Presets, AnalyticCountEqualsModuleCountAtPaperScale) {
  expect_analytic_equals_module(preset("pha-125m"));
}

TEST(Flops, ForwardMatmulIsTwicePerWeightAndTrainingIsThreeTimes) {
  for (const char* name : {"pha-tiny", "transformer-tiny", "pha-125m"}) {
    ModelConfig c = preset(name);
    ParamCount pc = count_parameters(c);
    FlopsEstimate e = estimate_flops(c, 512, 8);
    Flops f = e.forward;
    EXPECT_DOUBLE_EQ(f.gss_matmul + f.attn_matmul + f.ffn, 2.0 * pc.matmul) << name;
    EXPECT_DOUBLE_EQ(f.head, 2.0 * c.d_model * c.vocab_size) << name;
    EXPECT_DOUBLE_EQ(e.training.total(), 3.0 * f.total()) << name;
    double layers = 0;
    for (double x : e.layer_forward) layers += x;
    EXPECT_NEAR(layers + f.head, f.total(), 1e-6 * f.total()) << name;
  }
}

TEST(Flops, AttentionScoresGrowLinearlyPerTokenAndGssLogarithmically) {
  ModelConfig c = preset("pha-tiny");
  // QK^T and AV with the causal half: 2 * 2 * heads * head_dim * (T + 1) / 2 per layer.
  FlopsEstimate a = estimate_flops(c, 1024, 1);
  EXPECT_DOUBLE_EQ(a.forward.attn_scores, 4.0 * 2.0 * 4 * 32 * 1025);
  FlopsEstimate b = estimate_flops(c, 4096, 1);
  EXPECT_NEAR(b.forward.attn_scores / a.forward.attn_scores, 4097.0 / 1025.0, 1e-12);
  double conv_ratio = b.forward.gss_conv / a.forward.gss_conv;
  EXPECT_GT(conv_ratio, 1.0);
  EXPECT_LT(conv_ratio, 1.3);  // log2(8192) / log2(2048) = 13/11 for the FFTs
  // Transformer: no GSS work at all; gss-only: no attention work.
  EXPECT_EQ(estimate_flops(preset("transformer-tiny"), 512).forward.gss(), 0.0);
  EXPECT_EQ(estimate_flops(preset("gss-only-tiny"), 512).forward.attention(), 0.0);
  // The kernel K is built once per batch: per token it shrinks with the batch.
  EXPECT_DOUBLE_EQ(estimate_flops(c, 512, 4).forward.gss_kernel * 4, estimate_flops(c, 512, 1).forward.gss_kernel);
}

TEST(Flops, MemoryEstimateScalesWithTokensAndDropsWithoutTraining) {
  ModelConfig c = preset("pha-tiny");
  MemoryEstimate train = estimate_memory(c, 8, 512, true);
  MemoryEstimate infer = estimate_memory(c, 8, 512, false);
  const int64_t p = count_parameters(c).total;
  EXPECT_EQ(train.weights, 4 * p);
  EXPECT_EQ(train.gradients, 4 * p);
  EXPECT_EQ(train.optimizer, 8 * p);
  EXPECT_EQ(infer.gradients + infer.optimizer, 0);
  EXPECT_LT(infer.activations, train.activations);
  EXPECT_EQ(train.logits, 3LL * 8 * 512 * c.vocab_size * 4);
  // Twice the batch: twice the activations.
  EXPECT_EQ(estimate_memory(c, 16, 512, true).activations, 2 * train.activations);
  // Attention scores are quadratic in T: per token, the activations grow with T.
  EXPECT_GT(estimate_memory(c, 1, 4096).activations / 4096, estimate_memory(c, 8, 512).activations / 4096);
}
