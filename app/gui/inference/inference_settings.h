// The Inference tab's Measure... settings as the user types them (prompt lengths, batch sizes,
// tokens generated, timed decode steps), turned into the engine's sweep and checked by the
// engine's own validation (runtime::validate_inference_sweep): a bad list is refused with a
// message naming the field, never measured. Remembered in QSettings ("inference/...").
#pragma once

#include <QString>
#include <QStringList>

#include "runtime/inference_bench.h"

namespace pha::gui {

struct InferenceSettingsText {
  QString lengths;   // "256,1024,4096"
  QString batches;   // "1,8"
  int generate = 256;
  int decodeTimed = 32;
};

// The engine's defaults (runtime::InferenceSweep) as text.
InferenceSettingsText defaultInferenceSettings();
InferenceSettingsText savedInferenceSettings();  // the last accepted, else the defaults
void saveInferenceSettings(const InferenceSettingsText& text);

// Fills sweep's seq_lens, batches, generate and decode_timed from `text` and validates the
// sweep; false with `error` naming the field when something is wrong (sweep then unchanged).
bool applyInferenceSettings(const InferenceSettingsText& text, runtime::InferenceSweep* sweep, QString* error);

}  // namespace pha::gui
