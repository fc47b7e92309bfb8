// GeneratePanel: the Generate dock. A prompt and a sampled continuation from a run's last
// checkpoint (the run picked in the run browser), with temperature, top-k, top-p and seed.
// Sampling runs in its own thread; the window stays responsive.
#pragma once

#include <QString>
#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace pha::gui {

class GeneratePanel : public QWidget {
  Q_OBJECT
 public:
  explicit GeneratePanel(QWidget* parent = nullptr);
  ~GeneratePanel() override;

  void setRun(const QString& storePath, qint64 runId, const QString& runName);
  // No run to sample from (another project opened).
  void clearRun();
  qint64 runId() const { return m_runId; }
  void generate();
  bool isBusy() const { return m_busy; }
  QString output() const;   // the last continuation
  QString status() const;

 signals:
  void generated(const QString& continuation);
  void failed(const QString& message);

 private:
  QString m_store;
  qint64 m_runId = 0;
  bool m_busy = false;
  QLabel* m_runLabel = nullptr;
  QPlainTextEdit* m_prompt = nullptr;
  QSpinBox* m_tokens = nullptr;
  QDoubleSpinBox* m_temperature = nullptr;
  QSpinBox* m_topK = nullptr;
  QDoubleSpinBox* m_topP = nullptr;
  QSpinBox* m_seed = nullptr;
  QPushButton* m_button = nullptr;
  QTextBrowser* m_output = nullptr;
  QLabel* m_status = nullptr;
  QString m_last;
  class QThread* m_thread = nullptr;
};

}  // namespace pha::gui
