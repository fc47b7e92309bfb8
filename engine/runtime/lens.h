// The hybrid lens (docs/lens.md): what each branch of a trained model does, per layer and per
// token, read from one of a run's checkpoints (never during training). One implementation for
// `pha lens ...`, the window's Lens dock and the report's lens claims. Plain C++: torch stays
// inside the trainer (runtime/trainer.h, nn/lens_probe.h).
//
//   runtime::Lens lens(store_path, run_id);                 // the run's last checkpoint
//   auto w = lens.windows({});                              // 4,096 validation tokens
//   auto weights = lens.effective_weights(w);               // raw, effective, share (L x 3)
//   auto ko = lens.knockouts(w);                            // delta loss per layer x branch (+ class)
//   auto tok = lens.token_losses(w);                        // per-token NLL + branch contributions
//   auto spec = lens.spectrum();                            // |K(t)| and half-lives per GSS layer
//   auto map = lens.attention(w, 0, layer, head);           // one head's weights on window 0
//   auto cmp = runtime::compare_tokens(store, {a}, {b}, {}); // per-token difference, binned + CIs
//
// Branch order everywhere: 0 gss, 1 attn, 2 ffn (model::Branch).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/model_introspection.h"
#include "store/lens_store.h"

namespace pha::runtime {

struct LensOptions {
  std::string checkpoint;  // empty: the run's last checkpoint (or the one at `step`)
  int64_t step = -1;       // >= 0: the run's checkpoint at this step
  bool at_init = false;    // the model as the run's seed initialised it (no checkpoint loaded)
  std::string device = "cpu";
};

// What the lens reads.
struct LensSource {
  // Text runs: a text of the user's (tokenized with the run's tokenizer, cut into windows of the
  // run's seq_len, the last one shorter), or else tokens [offset, offset + tokens] of the split.
  std::string text;
  std::string split = "valid";  // text: valid | test; tasks: a held-out set name ("" = the first)
  int64_t tokens = 4096;        // text: tokens predicted (0: the whole split / text)
  int64_t offset = 0;           // text: first token of the split; tasks: first example
  int64_t examples = 64;        // tasks: examples of the held-out set
  int ngram = 0;                // text: the copyable rule's n (0: 4 for bytes, 2 otherwise)
};

// The tokens the lens looks at: B windows of T positions, and each position's class.
struct LensWindows {
  int B = 0, T = 0;
  std::vector<int32_t> inputs, targets;  // (B*T); targets -100 where nothing is counted
  std::vector<std::string> input_text;   // (B*T) each input token as text (control bytes escaped)
  std::vector<std::string> target_text;  // (B*T) the token to predict, as text
  std::vector<int8_t> cls;               // (B*T) index into class_names; -1 where not counted
  std::vector<std::string> class_names;  // text: copyable, novel; MQAR: key, value, query, filler
  // (B*T) 1 where the position counts in the overall figures (every mean "over all tokens"):
  // text: every counted target; tasks: the task's own targets only (the other positions carry
  // the next input as target and are reached through their class alone).
  std::vector<uint8_t> scored;
  std::string source;                    // "valid tokens 0-4095 (4 windows of 1024)", "text (312 tokens)"
  int64_t counted() const;               // positions that count in the overall figures (scored)
};

struct LensRunInfo {
  int64_t run_id = 0;
  std::string run_name;
  std::string checkpoint;  // empty when at_init
  int64_t step = 0;        // the checkpoint's training step (0 at init)
  bool is_task = false;
  int seq_len = 0;         // training.seq_len (text) or the task's T
  int layers = 0;
  std::vector<std::array<bool, 3>> has_branch;  // [layer][branch]
  std::vector<bool> mixed;                      // the layer has a mixed sublayer (mixer weights)
  std::vector<int> heads;                       // query heads of the layer's attention (0: none)
  std::vector<int> gss_channels;                // H of the layer's GSS branch (0: none)
  std::string tokenizer;                        // "byte", "gpt2", ... ("task" for task runs)
};

struct TokenLosses {
  LensWindows windows;
  std::vector<float> nll;  // (B*T) nats; NaN where not counted
  // [layer][branch] (B*T): L2 norm over d of the weighted term w_b * RMSNorm_b(y_b) entering the
  // residual sum (PHA: the mixed sublayer's); empty where the layer has no such branch.
  std::vector<std::array<std::vector<float>, 3>> contribution;
  double mean_nll = 0.0;   // over the scored positions: text: equals the evaluator's loss on these windows
  int64_t counted = 0;
  double seconds = 0.0;
};

struct EffectiveWeights {
  int layers = 0;
  // L x 3; NaN where the layer has no mixer (raw) or no such branch.
  model::FloatMatrix raw;        // the softplus mixer weight w_b
  model::FloatMatrix gain_rms;   // r_b = RMS over tokens and d of RMSNorm_b(y_b) (the gain's effect)
  model::FloatMatrix effective;  // w_b * r_b
  model::FloatMatrix share;      // effective / the layer's sum of effective weights
  int64_t tokens = 0;            // positions averaged over
  std::string source;
  double seconds = 0.0;
};

struct KnockoutResult {
  // The knock-out rule: a branch's output is replaced by zeros, so its term w_b RMSNorm_b(y_b)
  // is 0; the other branches keep their weights (not renormalised).
  static constexpr const char* kRule = "zeroed, the other weights not renormalised";
  int layers = 0;
  double base_loss = 0.0;                 // mean NLL of the intact model over the scored positions
  // (L + 1) x 3: mean NLL with (layer, branch) removed minus base_loss; row L = the branch
  // removed in every layer; NaN where the layer has no such branch.
  model::FloatMatrix delta;
  std::vector<std::string> class_names;   // as in the windows
  std::vector<int64_t> class_tokens;      // counted positions per class
  std::vector<double> base_by_class;
  std::vector<model::FloatMatrix> delta_by_class;  // per class, the shape of delta
  int64_t tokens = 0;
  int passes = 0;                         // forward passes run (1 + knock-outs)
  std::string source;
  double seconds = 0.0;
};

struct KernelSpectrum {
  struct Layer {
    int layer = 0;
    int channels = 0, lags = 0;
    std::vector<float> abs_k;      // (channels x lags) |K_h(t)|, lag 0 including D_h
    std::vector<float> half_life;  // (channels) lags; +inf when not reached within the horizon
  };
  std::vector<Layer> layers;       // GSS layers only
  int64_t horizon = 0;             // lags computed
  int train_len = 0;               // the run's training context
  std::string state;               // "step 600" or "init"
  std::string none_reason;         // non-empty when the model has no GSS branch
};

struct AttentionMap {
  int layer = 0, head = 0, heads = 0, T = 0;
  std::vector<float> weights;       // (T x T) row = query position, column = key position
  std::vector<std::string> tokens;  // (T) the window's input tokens as text
};

class Lens {
 public:
  // Loads the run's checkpoint (or builds the model at its init). Throws core::Error naming the
  // store, run or checkpoint.
  Lens(const std::string& store_path, int64_t run_id, const LensOptions& options = {});
  ~Lens();
  Lens(const Lens&) = delete;
  Lens& operator=(const Lens&) = delete;

  const LensRunInfo& info() const;
  // Throws core::Error naming the field ("--text", "--split", "--tokens", ...) for a source that
  // does not fit the run (a text for a task run, an empty split, an unknown set).
  LensWindows windows(const LensSource& source) const;

  TokenLosses token_losses(const LensWindows& w);
  EffectiveWeights effective_weights(const LensWindows& w);
  KnockoutResult knockouts(const LensWindows& w);
  // horizon 0: 4 x the training context.
  KernelSpectrum spectrum(int64_t horizon = 0);
  // Throws core::Error for a model without attention ("... has no attention branch ...").
  AttentionMap attention(const LensWindows& w, int window, int layer, int head);

  // The rows record_lens stores for a result (kinds raw_weight, effective_weight,
  // effective_share; base_loss, knockout), at this lens's checkpoint step.
  std::vector<store::LensRow> rows(const EffectiveWeights& w) const;
  std::vector<store::LensRow> rows(const KnockoutResult& k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Per-token comparison of two runs, or two groups of seeded replicas (each token's NLL averaged
// over a group's runs), on the same windows (read from the first run of `a`; every run must
// share its data and tokenizer). diff = a - b (negative: a predicts the token better).
struct TokenComparison {
  LensWindows windows;
  std::vector<float> nll_a, nll_b, diff;  // (B*T); NaN where not counted
  std::vector<int64_t> runs_a, runs_b;
  std::string label_a, label_b;
  struct Bin {
    std::string label;        // "1-16", "copyable", ...
    double mean_a = 0, mean_b = 0, mean_diff = 0;
    double lo = 0, hi = 0;    // 95% bootstrap interval of mean_diff (windows resampled)
    int64_t tokens = 0;
  };
  Bin overall;
  std::vector<Bin> by_position;  // positions in the window, log2 bins (1, 2-3, 4-7, ...)
  std::vector<Bin> by_class;
  int bootstrap = 0;
  double seconds = 0.0;
};

TokenComparison compare_tokens(const std::string& store_path, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b, const LensSource& source,
                               const LensOptions& options = {}, int bootstrap = 1000, uint64_t seed = 1);

// Per-token results as CSV (one row per counted position): window, position, class, input,
// target, nll (and the other side / diff for a comparison; contributions per layer and branch).
std::string token_losses_csv(const TokenLosses& t);
std::string token_comparison_csv(const TokenComparison& c);

}  // namespace pha::runtime
