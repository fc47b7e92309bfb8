#include "widgets/inference_rows.h"

#include <QDateTime>
#include <QObject>
#include <QSet>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <utility>

#include "widgets/csv_file.h"
#include "widgets/number_format.h"

namespace pha::widgets {

std::vector<store::ModelInference> newestPerModel(const std::vector<store::ModelInference>& runs) {
  std::vector<store::ModelInference> out;
  QSet<QString> seen;
  for (const auto& r : runs) {
    const QString model = QString::fromStdString(r.model);
    if (seen.contains(model)) continue;
    seen.insert(model);
    out.push_back(r);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

double toMiB(std::int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

QString mibText(std::int64_t bytes) { return QString::number(toMiB(bytes), 'f', 1); }

QString lengthLabel(std::int64_t length) {
  if (length >= 1024 && length % 1024 == 0) return QStringLiteral("%1k").arg(length / 1024);
  return QString::number(length);
}

QString contextRatioText(std::int64_t length, int context) {
  if (context <= 0) return {};
  return QStringLiteral("%1x").arg(static_cast<double>(length) / context, 0, 'g', 3);
}

QString allocatedCheck(const QString& what, std::int64_t allocated, std::int64_t formula) {
  if (allocated == formula) return QObject::tr("%1 %2 MiB allocated = formula").arg(what, mibText(allocated));
  return QObject::tr("%1 %2 MiB allocated, formula %3 MiB (%4 bytes apart)")
      .arg(what, mibText(allocated), mibText(formula))
      .arg(allocated - formula);
}

bool allocatedMatchesFormula(const store::InferencePointResult& p) {
  return p.memory.kv_cache == p.memory.kv_formula && p.memory.gss_state == p.memory.gss_state_formula;
}

QString seriesName(const QString& model, std::int64_t batch) {
  return batch == 1 ? model : QObject::tr("%1, batch %2").arg(model).arg(batch);
}

QString memoryTooltip(const store::InferencePointResult& p) {
  const auto& m = p.memory;
  QStringList lines;
  lines << QObject::tr("%1 at L = %2, batch %3 (%4 tokens reserved: L + %5 generated)")
               .arg(QString::fromStdString(p.spec.model))
               .arg(p.spec.seq_len)
               .arg(p.spec.batch)
               .arg(p.spec.seq_len + p.spec.generate)
               .arg(p.spec.generate);
  lines << QObject::tr("weights %1 MiB (%2 parameters)").arg(mibText(m.weights), formatCount(double(p.n_params)));
  lines << allocatedCheck(QObject::tr("KV cache"), m.kv_cache, m.kv_formula);
  lines << allocatedCheck(QObject::tr("GSS state"), m.gss_state, m.gss_state_formula);
  lines << QObject::tr("rest %1 MiB (the prefill's activations, kernel workspace, allocator slack)")
               .arg(mibText(m.activations));
  lines << QObject::tr("peak %1 MiB resident = these + %2 MiB baseline (the program and LibTorch before the model)")
               .arg(mibText(m.peak), mibText(m.baseline));
  return lines.join('\n');
}

QString pointTooltip(const store::InferencePointResult& p, std::int64_t runId) {
  QStringList lines;
  if (!p.error.empty()) lines << QObject::tr("failed: %1").arg(QString::fromStdString(p.error));
  if (!p.decode_path.empty()) lines << QObject::tr("decode path: %1").arg(QString::fromStdString(p.decode_path));
  if (p.n_params > 0)
    lines << QObject::tr("%1 parameters, %2, training context %3")
                 .arg(formatCount(double(p.n_params)), QString::fromStdString(p.dtype.empty() ? "?" : p.dtype))
                 .arg(p.context);
  if (p.error.empty()) lines << memoryTooltip(p);
  QString when;
  if (p.ended_ms > 0) when = QDateTime::fromMSecsSinceEpoch(p.ended_ms).toString("yyyy-MM-dd hh:mm");
  if (runId > 0) lines << QObject::tr("run %1%2").arg(runId).arg(when.isEmpty() ? QString() : ", " + when);
  return lines.join('\n');
}

QString slopeSummary(const std::vector<store::InferencePointResult>& points) {
  std::vector<std::pair<std::int64_t, std::string>> keys;  // batch, model in first-seen order
  for (const auto& p : points) {
    const std::pair<std::int64_t, std::string> k{p.spec.batch, p.spec.model};
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  QStringList parts;
  std::int64_t batch = -1;
  QStringList models;
  const auto flush = [&] {
    if (!models.isEmpty()) parts << QObject::tr("batch %1: %2").arg(batch).arg(models.join(", "));
    models.clear();
  };
  for (const auto& [b, model] : keys) {
    if (b != batch) flush();
    batch = b;
    const store::DecodeSlope s = store::decode_slope(points, model, b);
    if (s.n < 2) continue;
    models << QObject::tr("%1 %2 (%3x from L = %4 to %5)")
                  .arg(QString::fromStdString(model))
                  .arg(QString::asprintf("%+.4f", std::abs(s.slope_ms_per_1k) < 5e-5 ? 0.0 : s.slope_ms_per_1k))
                  .arg(s.ratio_last_first, 0, 'f', 2)
                  .arg(lengthLabel(s.first_len), lengthLabel(s.last_len));
  }
  flush();
  if (parts.isEmpty()) return {};
  return QObject::tr("Decode slope, ms per token per 1k tokens of context (least squares over L): %1")
      .arg(parts.join("; "));
}

QString formulaSummary(const std::vector<store::InferencePointResult>& points) {
  int measured = 0;
  QStringList differ;
  for (const auto& p : points) {
    if (!p.error.empty()) continue;
    ++measured;
    if (!allocatedMatchesFormula(p))
      differ << QObject::tr("%1 at L = %2, batch %3")
                    .arg(QString::fromStdString(p.spec.model))
                    .arg(p.spec.seq_len)
                    .arg(p.spec.batch);
  }
  if (measured == 0) return {};
  if (differ.isEmpty())
    return QObject::tr("KV cache and GSS state: allocated bytes = formula at every point (%1 points)").arg(measured);
  return QObject::tr("KV cache or GSS state allocated differently from the formula at %1 (hover a bar)")
      .arg(differ.join(", "));
}

bool writeInferenceCsv(const QString& path, const std::vector<store::InferencePointResult>& points, QString* error) {
  const QString header =
      "model,seq_len,context,batch,generate,ttft_ms,prefill_tokens_per_s,decode_ms_per_token,decode_tokens_per_s,"
      "e2e_ms,e2e_tokens_per_s,weights_bytes,kv_cache_bytes,kv_formula_bytes,gss_state_bytes,gss_state_formula_bytes,"
      "rest_bytes,baseline_bytes,peak_bytes,n_params,decode_path,error";
  return writeCsvFile(
      path, header,
      [&](QTextStream& out) {
        for (const auto& p : points) {
          const auto& m = p.memory;
          QStringList f;
          f << csvField(QString::fromStdString(p.spec.model)) << QString::number(p.spec.seq_len)
            << QString::number(p.context) << QString::number(p.spec.batch) << QString::number(p.spec.generate)
            << csvNumber(p.ttft_ms) << csvNumber(p.prefill_tokens_per_s) << csvNumber(p.decode_ms_per_token)
            << csvNumber(p.decode_tokens_per_s) << csvNumber(p.e2e_ms) << csvNumber(p.e2e_tokens_per_s)
            << QString::number(m.weights) << QString::number(m.kv_cache) << QString::number(m.kv_formula)
            << QString::number(m.gss_state) << QString::number(m.gss_state_formula) << QString::number(m.activations)
            << QString::number(m.baseline) << QString::number(m.peak) << QString::number(p.n_params)
            << csvField(QString::fromStdString(p.decode_path)) << csvField(QString::fromStdString(p.error));
          out << f.join(',') << '\n';
        }
      },
      error);
}

}  // namespace pha::widgets
