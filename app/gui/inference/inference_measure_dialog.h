// The Inference tab's Measure... dialog: prompt lengths, batch sizes, tokens generated and timed
// decode steps (the engine's defaults, or the last accepted), the project's models it will
// measure and how many points that makes; a bad entry is named under the fields and Measure is
// disabled until it is fixed.
#pragma once

#include <QDialog>
#include <QStringList>

#include "gui/inference/inference_settings.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace pha::gui {

class InferenceMeasureDialog : public QDialog {
  Q_OBJECT
 public:
  // `models`: what Measure will measure (the project's models); `modelsError`: why they are unknown.
  InferenceMeasureDialog(const QStringList& models, const QString& modelsError, QWidget* parent = nullptr);

  InferenceSettingsText settings() const;
  void setSettings(const InferenceSettingsText& text);
  // The sweep's settings when valid (the models are the job's to fill).
  const runtime::InferenceSweep& sweep() const { return m_sweep; }
  bool isValid() const { return m_valid; }
  QString message() const;  // the error, or the number of points

 private:
  void check();

  QStringList m_models;
  QLineEdit* m_lengths = nullptr;
  QLineEdit* m_batches = nullptr;
  QSpinBox* m_generate = nullptr;
  QSpinBox* m_decodeTimed = nullptr;
  QLabel* m_message = nullptr;
  QDialogButtonBox* m_buttons = nullptr;
  runtime::InferenceSweep m_sweep;
  bool m_valid = false;
};

}  // namespace pha::gui
