// The hybrid lens's stored measurements (table lens_results, schema v8; docs/lens.md): what
// `pha lens weights` and `pha lens knockout` (and the window's Lens dock) measured on a run's
// checkpoint, so the report's claims ("knockout", "specialisation", the sandwich claim on
// effective weights) and the dock's spread over seeds read them without re-running the model.
//
//   kind "raw_weight"        value: the softplus mixer weight of (layer, branch)
//   kind "effective_weight"  value: mixer weight x RMS of the branch's normed output (its gain)
//   kind "effective_share"   value: effective weight / sum of the layer's effective weights
//   kind "base_loss"         value: mean NLL (nats / token) of the intact model; layer -1, branch ""
//   kind "knockout"          value: mean NLL with (layer, branch) removed minus base_loss;
//                            layer -1 = the branch removed in every layer
// class "" is every counted token; otherwise a token class (text: "copyable", "novel"; tasks:
// "key", "value", "query", "filler", "answer", "other"). `tokens` counts the tokens it was
// measured on; `source` says which ("valid:4096", "text:sha256 12ab..", "test:64 examples").
//
//   store::record_lens(store, run_id, rows);    // one transaction, replacing the keys
//   auto rows = store::read_lens(store, run_id);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace pha::store {

struct LensRow {
  std::string kind;
  int layer = -1;
  std::string branch;  // gss | attn | ffn | "" (base_loss)
  std::string cls;     // "" = every counted token
  std::int64_t step = 0;  // the checkpoint's training step
  double value = 0.0;
  std::int64_t tokens = 0;
  std::string source;
  std::int64_t measured_at = 0;  // ms since the epoch
};

// Inserts or replaces every row (by run, kind, layer, branch, class) in one write transaction.
// When `replace_kinds` is true every stored row of the kinds present in `rows` goes first (a
// new measurement replaces the whole earlier one, never mixes with it). Throws core::Error when
// the run does not exist.
void record_lens(Store& store, std::int64_t run_id, const std::vector<LensRow>& rows, bool replace_kinds = true);
// The run's rows ordered by kind, class, layer, branch (canonical order gss, attn, ffn).
std::vector<LensRow> read_lens(Store& store, std::int64_t run_id);

}  // namespace pha::store
