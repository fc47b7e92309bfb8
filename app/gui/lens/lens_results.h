// What one Run of the Lens dock measured on a run's checkpoint (runtime/lens.h), handed from
// the worker to the tabs, plus the seeds' stored knock-outs for the spread over replicas.
#pragma once

#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/lens.h"

namespace pha::gui {

// Mean and sd over seeded replicas of one stored knock-out cell.
struct SeedSpread {
  double mean = 0.0, sd = 0.0;
  int seeds = 0;
};

struct LensResults {
  std::shared_ptr<runtime::Lens> lens;  // kept for the attention and record jobs
  runtime::LensRunInfo info;
  runtime::LensSource source;
  runtime::LensWindows windows;
  std::optional<runtime::EffectiveWeights> weights;
  std::optional<runtime::KnockoutResult> knockouts;
  std::optional<runtime::TokenLosses> tokens;
  std::optional<runtime::KernelSpectrum> spectrum;
  std::optional<runtime::AttentionMap> attention;
  QString weightsError, knockoutsError, tokensError, spectrumError, attentionError;
  // (class "" or a class name, layer (-1: all layers), branch 0..2) -> spread over the group's
  // replicas that stored knock-outs (store::read_lens); empty when fewer than two have.
  std::map<std::tuple<std::string, int, int>, SeedSpread> seedSpread;
  std::vector<qint64> spreadRuns;
  double seconds = 0.0;
};

inline const char* branchKey(int b) { return b == 0 ? "gss" : b == 1 ? "attn" : "ffn"; }

}  // namespace pha::gui
