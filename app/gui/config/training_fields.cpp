#include "gui/config/training_fields.h"

#include <QLineEdit>
#include <QObject>
#include <QSpinBox>
#include <limits>

#include "core/error.h"
#include "gui/config/json_form.h"
#include "project/project.h"

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
  form->addText(QStringLiteral("mixer_lr"), QObject::tr("Mixer lr"), numberFromText, numberToText);
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

  // What each field means (docs/project-format.md, "training", has the full reference).
  const std::pair<const char*, QString> help[] = {
      {"steps", QObject::tr("Optimizer steps to train")},
      {"batch_size", QObject::tr("Sequences per micro-batch")},
      {"seq_len", QObject::tr("Tokens per training window T (text; a task uses its own length)")},
      {"grad_accum", QObject::tr("Micro-batches whose gradients add up to one optimizer step")},
      {"warmup_steps", QObject::tr("Steps of linear warm-up from 0 to the peak learning rate (at most steps)")},
      {"lr", QObject::tr("Peak learning rate, typed as a number (3e-3); cosine decay follows the warm-up")},
      {"min_lr_ratio", QObject::tr("The cosine ends at learning rate × this ratio")},
      {"weight_decay", QObject::tr("AdamW weight decay, on matrices and the embedding only")},
      {"dss_lr", QObject::tr("Peak learning rate of the DSS kernel parameters (same warm-up and cosine)")},
      {"mixer_lr", QObject::tr("Peak learning rate of the mixers' softplus logits (default: the learning rate)")},
      {"grad_clip", QObject::tr("Global L2 gradient clipping; 0 = off (DeepNorm needs none)")},
      {"seed", QObject::tr("Seed of the initialization and the batch order (CPU runs are bit-reproducible)")},
      {"eval_every", QObject::tr("Steps between validation evaluations; 0 = only the final one")},
      {"eval_tokens", QObject::tr("Validation tokens per periodic evaluation (text); 0 = the whole split")},
      {"checkpoint_every", QObject::tr("Steps between checkpoints; 0 = only at the end and on cancel")},
      {"mixer_every", QObject::tr("Steps between mixer-weight snapshots and per-branch output norms (the heatmap's "
                                  "frames)")},
      {"device", QObject::tr("auto = CUDA when available, else CPU")},
      {"precision", QObject::tr("auto = bf16 mixed precision where the CPU or GPU has native bf16 that is faster "
                                "than fp32, else fp32 (`pha info` says which and why)")},
      {"threads", QObject::tr("Intra-op CPU threads; 0 = all cores (or $PHA_THREADS)")},
  };
  for (const auto& [key, text] : help) form->setHelp(QString::fromLatin1(key), text);
}

json trainingDefaults() {
  static const json defaults = project::TrainingConfig::from_json(json::object()).used;
  return defaults;
}

TrainingCheck checkTraining(const json& doc) {
  TrainingCheck check;
  try {
    project::TrainingConfig::from_json(doc, "training");
    check.ok = true;
  } catch (const core::Error& e) {
    check.message = QString::fromStdString(e.what());
    check.where = QString::fromStdString(e.where());
  } catch (const std::exception& e) {
    check.message = QString::fromStdString(e.what());
  }
  return check;
}

}  // namespace pha::gui
