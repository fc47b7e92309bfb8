#include "training_fields.h"

#include <QLineEdit>
#include <QObject>
#include <QSpinBox>
#include <limits>

#include "core/error.h"
#include "json_form.h"
#include "runtime/project.h"

namespace pha::gui {

using nlohmann::json;

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

// A number typed as text ("3e-4" reads better than a spin box's "0.000300"); text that is not
// a number stays a string so the validation names the field.
json numberFromText(const QString& text) {
  bool ok = false;
  const double v = text.trimmed().toDouble(&ok);
  return ok ? json(v) : json(text.toStdString());
}

QString numberToText(const json& v) {
  if (v.is_number()) return QString::number(v.get<double>(), 'g', 12);
  return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
}

}  // namespace

void populateTrainingForm(JsonForm* form) {
  form->addSection(QObject::tr("Schedule"));
  form->addInt(QStringLiteral("steps"), QObject::tr("Steps"), 1, kIntMax);
  form->addInt(QStringLiteral("batch_size"), QObject::tr("Batch size"), 1, 1 << 16);
  form->addInt(QStringLiteral("seq_len"), QObject::tr("Sequence length"), 2, 1 << 20);
  form->addInt(QStringLiteral("grad_accum"), QObject::tr("Gradient accumulation"), 1, 1 << 12);
  form->addInt(QStringLiteral("warmup_steps"), QObject::tr("Warmup steps"), 0, kIntMax);

  form->addSection(QObject::tr("Optimizer (AdamW)"));
  form->addText(QStringLiteral("lr"), QObject::tr("Learning rate"), numberFromText, numberToText);
  form->addDouble(QStringLiteral("min_lr_ratio"), QObject::tr("Final lr ratio"), 0.0, 1.0, 3, 0.05);
  form->addDouble(QStringLiteral("weight_decay"), QObject::tr("Weight decay"), 0.0, 10.0, 4, 0.01);
  form->addText(QStringLiteral("dss_lr"), QObject::tr("DSS kernel lr"), numberFromText, numberToText);
  form->addText(QStringLiteral("mixer_lr"), QObject::tr("Mixer lr"), numberFromText, numberToText)
      ->setToolTip(QObject::tr("Peak learning rate of the mixers' softplus logits (default: the learning rate)"));
  form->addDouble(QStringLiteral("grad_clip"), QObject::tr("Gradient clip"), 0.0, 1e6, 3, 0.1)
      ->setSpecialValueText(QObject::tr("off"));
  form->addInt(QStringLiteral("seed"), QObject::tr("Seed"), 0, kIntMax);

  form->addSection(QObject::tr("Evaluation and checkpoints"));
  form->addInt(QStringLiteral("eval_every"), QObject::tr("Evaluate every"), 0, kIntMax, QObject::tr("at the end"));
  form->addInt(QStringLiteral("eval_tokens"), QObject::tr("Eval tokens"), 0, kIntMax, QObject::tr("whole split"));
  form->addInt(QStringLiteral("checkpoint_every"), QObject::tr("Checkpoint every"), 0, kIntMax,
               QObject::tr("at the end"));
  form->addInt(QStringLiteral("mixer_every"), QObject::tr("Mixer snapshot every"), 1, kIntMax);

  form->addSection(QObject::tr("Device"));
  form->addChoice(QStringLiteral("device"), QObject::tr("Device"),
                  {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")});
  form->addChoice(QStringLiteral("precision"), QObject::tr("Precision"),
                  {QStringLiteral("auto"), QStringLiteral("fp32"), QStringLiteral("bf16")});
  form->addInt(QStringLiteral("threads"), QObject::tr("Threads"), 0, 4096, QObject::tr("all cores"));
}

json trainingDefaults() {
  static const json defaults = pha::runtime::TrainingConfig::from_json(json::object()).used;
  return defaults;
}

TrainingCheck checkTraining(const json& doc) {
  TrainingCheck check;
  try {
    pha::runtime::TrainingConfig::from_json(doc, "training");
    check.ok = true;
  } catch (const pha::Error& e) {
    check.message = QString::fromStdString(e.what());
    check.where = QString::fromStdString(e.where());
  } catch (const std::exception& e) {
    check.message = QString::fromStdString(e.what());
  }
  return check;
}

}  // namespace pha::gui
