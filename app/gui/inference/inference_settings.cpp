#include "gui/inference/inference_settings.h"

#include <QObject>
#include <QSettings>
#include <exception>

namespace pha::gui {

namespace {

QString joined(const std::vector<int64_t>& values) {
  QStringList parts;
  for (int64_t v : values) parts << QString::number(v);
  return parts.join(',');
}

// "256, 1024,4096" -> {256, 1024, 4096}; false with the offending entry named.
bool parseList(const QString& text, const QString& field, std::vector<int64_t>* out, QString* error) {
  out->clear();
  for (const QString& raw : text.split(',', Qt::SkipEmptyParts)) {
    const QString item = raw.trimmed();
    if (item.isEmpty()) continue;
    bool ok = false;
    const qlonglong v = item.toLongLong(&ok);
    if (!ok) {
      *error = QObject::tr("%1: \"%2\" is not a whole number (write a comma-separated list, e.g. 256,1024,4096)")
                   .arg(field, item);
      return false;
    }
    out->push_back(v);
  }
  if (out->empty()) {
    *error = QObject::tr("%1: list at least one value").arg(field);
    return false;
  }
  return true;
}

}  // namespace

InferenceSettingsText defaultInferenceSettings() {
  const runtime::InferenceSweep d;
  return {joined(d.seq_lens), joined(d.batches), d.generate, d.decode_timed};
}

InferenceSettingsText savedInferenceSettings() {
  const InferenceSettingsText d = defaultInferenceSettings();
  QSettings s;
  return {s.value("inference/seqLens", d.lengths).toString(), s.value("inference/batches", d.batches).toString(),
          s.value("inference/generate", d.generate).toInt(), s.value("inference/decodeTimed", d.decodeTimed).toInt()};
}

void saveInferenceSettings(const InferenceSettingsText& text) {
  QSettings s;
  s.setValue("inference/seqLens", text.lengths);
  s.setValue("inference/batches", text.batches);
  s.setValue("inference/generate", text.generate);
  s.setValue("inference/decodeTimed", text.decodeTimed);
}

bool applyInferenceSettings(const InferenceSettingsText& text, runtime::InferenceSweep* sweep, QString* error) {
  runtime::InferenceSweep s = *sweep;
  QString e;
  if (!parseList(text.lengths, QObject::tr("Prompt lengths L"), &s.seq_lens, &e) ||
      !parseList(text.batches, QObject::tr("Batch sizes"), &s.batches, &e)) {
    if (error) *error = e;
    return false;
  }
  s.generate = text.generate;
  s.decode_timed = text.decodeTimed;
  if (s.models.empty()) s.models = {"model"};  // the project's models replace these; only the settings are checked
  try {
    runtime::validate_inference_sweep(s);
  } catch (const std::exception& ex) {
    if (error) *error = QString::fromUtf8(ex.what());
    return false;
  }
  sweep->seq_lens = s.seq_lens;
  sweep->batches = s.batches;
  sweep->generate = s.generate;
  sweep->decode_timed = s.decode_timed;
  return true;
}

}  // namespace pha::gui
