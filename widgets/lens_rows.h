// The hybrid lens's stored effective shares (store::read_lens, kind "effective_share") as a
// mixer matrix, for the Mixer heatmap's and Compare's raw / effective toggle.
#pragma once

#include <QString>
#include <optional>

#include "widgets/mixer_panel.h"
#include "store/lens_store.h"

namespace pha::widgets {

// The message shown when a run has no stored effective weights.
QString effectiveNotMeasuredMessage();
// layers x 3 (gss, attn, ffn) of the rows of kind "effective_share", class ""; NaN where none;
// step: the rows' checkpoint step. nullopt when there are none.
std::optional<MixerFrame> effectiveShareFrame(const std::vector<store::LensRow>& rows);
// Reads them from the store (the window's read options); nullopt when none or unreadable.
std::optional<MixerFrame> readEffectiveShares(const QString& storePath, qint64 runId);

}  // namespace pha::widgets
