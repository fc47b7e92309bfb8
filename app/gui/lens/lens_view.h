// LensView: the Lens dock (docs/gui.md, "Lens"). The hybrid lens (runtime/lens.h) on the run
// picked in the run table: a source bar (a validation window of the run's data, or a text of the
// user's for text runs), Run, and five tabs: Weights, Knock-outs, Tokens, Spectrum, Attention.
// Every engine call runs in a worker thread (LensTasks), so the window never waits on the model;
// an engine error (core::Error) is shown in the dock, never thrown. Record stores the weights and
// knock-outs in the run store (store::record_lens) for the report's claims and the mixer's
// raw / effective toggle.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <memory>

#include "gui/lens/lens_results.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace pha::gui {

class LensAttentionTab;
class LensKnockoutTab;
class LensSpectrumTab;
class LensTasks;
class LensTokensTab;
class LensWeightsTab;

class LensView : public QWidget {
  Q_OBJECT
 public:
  explicit LensView(QWidget* parent = nullptr);
  ~LensView() override;

  // The run the lens reads; `selected`: the run table's selection (the seeds whose stored
  // knock-outs give the spread). Reads the store for the run's group, checkpoints and the runs
  // it can be compared with.
  void setRun(const QString& storePath, qint64 runId, const QString& name, const QList<qint64>& selected = {});
  void clearRun(const QString& message = {});
  // The Tokens tab's "Compare with" set to that group of seeded replicas (false: not offered).
  bool setCompareWithGroup(const QString& group);
  qint64 runId() const { return m_runId; }

  // Source: the validation window (tokens for text runs, examples for task runs) or a text.
  void setSourceValidation(int tokens);
  void setSourceText(const QString& text);
  void run();     // the Run button
  void record();  // the Record button
  bool isBusy() const;
  QString status() const;
  bool hasResults() const { return m_results != nullptr; }
  const LensResults* results() const { return m_results.get(); }

  QTabWidget* tabs() const { return m_tabs; }
  LensWeightsTab* weightsTab() const { return m_weights; }
  LensKnockoutTab* knockoutTab() const { return m_knockouts; }
  LensTokensTab* tokensTab() const { return m_tokens; }
  LensSpectrumTab* spectrumTab() const { return m_spectrum; }
  LensAttentionTab* attentionTab() const { return m_attention; }
  QPushButton* runButton() const { return m_runButton; }
  QPushButton* recordButton() const { return m_recordButton; }

 signals:
  void finished(bool ok);            // a Run ended (ok: the windows were read)
  void jobEnded();                   // any job ended (run, attention, spectrum, comparison, record)
  void recorded(const QString& storePath, qint64 runId);
  void failed(const QString& message);

 private:
  runtime::LensSource source() const;
  void setStatus(const QString& text, bool error = false);
  void showResults();
  void requestAttention(int window, int layer, int head);
  void requestSpectrum(const runtime::LensOptions& options);
  void requestComparison(int index);
  void updateButtons();

  LensTasks* m_tasks = nullptr;
  QString m_store;
  qint64 m_runId = 0;
  QString m_runName;
  bool m_isTask = false;
  std::vector<qint64> m_replicas;  // the run's seeded replicas whose stored knock-outs are read
  std::shared_ptr<LensResults> m_results;

  QLabel* m_runLabel = nullptr;
  QComboBox* m_sourceKind = nullptr;
  QSpinBox* m_tokenCount = nullptr;
  QSpinBox* m_examples = nullptr;
  QPlainTextEdit* m_text = nullptr;
  QPushButton* m_runButton = nullptr;
  QPushButton* m_recordButton = nullptr;
  QLabel* m_status = nullptr;
  QTabWidget* m_tabs = nullptr;
  LensWeightsTab* m_weights = nullptr;
  LensKnockoutTab* m_knockouts = nullptr;
  LensTokensTab* m_tokens = nullptr;
  LensSpectrumTab* m_spectrum = nullptr;
  LensAttentionTab* m_attention = nullptr;
};

}  // namespace pha::gui
