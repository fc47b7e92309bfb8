#include "widgets/lens_rows.h"

#include <QObject>
#include <cmath>

#include "widgets/window_store.h"

namespace pha::widgets {

QString effectiveNotMeasuredMessage() {
  return QObject::tr("effective weights not measured: Lens > Weights > Record");
}

std::optional<MixerFrame> effectiveShareFrame(const std::vector<store::LensRow>& rows) {
  int layers = 0;
  for (const auto& r : rows)
    if (r.kind == "effective_share" && r.cls.empty() && r.layer >= 0) layers = std::max(layers, r.layer + 1);
  if (layers == 0) return std::nullopt;
  MixerFrame f;
  f.layers = layers;
  f.branches = 3;
  f.weights.assign(static_cast<size_t>(layers) * 3, NAN);
  for (const auto& r : rows) {
    if (r.kind != "effective_share" || !r.cls.empty() || r.layer < 0) continue;
    const int b = r.branch == "gss" ? 0 : r.branch == "attn" ? 1 : r.branch == "ffn" ? 2 : -1;
    if (b < 0) continue;
    f.weights[static_cast<size_t>(r.layer) * 3 + b] = static_cast<float>(r.value);
    f.step = r.step;
  }
  return f;
}

std::optional<MixerFrame> readEffectiveShares(const QString& storePath, qint64 runId) {
  if (storePath.isEmpty() || runId <= 0) return std::nullopt;
  try {
    auto s = store::Store::open(storePath.toStdString(), windowReadOptions());
    return effectiveShareFrame(store::read_lens(s, runId));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace pha::widgets
