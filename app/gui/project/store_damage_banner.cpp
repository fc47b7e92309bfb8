#include "gui/project/store_damage_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "gui/project/project_session.h"

namespace pha::gui {

StoreDamageBanner::StoreDamageBanner(ProjectSession* session, QWidget* parent) : QFrame(parent), m_session(session) {
  setObjectName("storeDamageBanner");
  setFrameShape(QFrame::StyledPanel);
  // Vermilion (Okabe-Ito): the runs are at stake, unlike the data banner's amber notice.
  setStyleSheet(QStringLiteral("#storeDamageBanner { background: rgba(213, 94, 0, 45); border: 1px solid rgba(213, 94, 0, 190); }"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  m_text = new QLabel(this);
  m_text->setObjectName("storeDamageText");
  m_text->setWordWrap(true);
  m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_text);
  auto* row = new QHBoxLayout;
  m_recover = new QPushButton(tr("Recover..."), this);
  m_recover->setObjectName("recoverStoreButton");
  m_recover->setToolTip(tr("Copy what SQLite can still read into a new runs.sqlite and keep the damaged file beside it "
                           "(the same as `pha runs recover`); asks first"));
  row->addWidget(m_recover);
  row->addStretch(1);
  layout->addLayout(row);
  connect(m_recover, &QPushButton::clicked, this, &StoreDamageBanner::recoverRequested);
  refresh();
}

void StoreDamageBanner::refresh() {
  const QStringList problems = m_session->storeProblems();
  setVisible(m_session->isOpen() && !problems.isEmpty());
  if (problems.isEmpty()) return;
  const QString more = problems.size() > 1 ? tr(" (and %1 more)").arg(problems.size() - 1) : QString();
  m_text->setText(tr("<b>This project's run store is damaged</b>: PRAGMA quick_check reports <code>%1</code>%2. "
                     "The file <code>%3</code> is kept untouched: nothing is written to it until you choose, and its "
                     "runs are not shown, since what a damaged file reads may be wrong. <b>Recover...</b> copies what "
                     "can still be read into a new store and keeps the damaged file beside it "
                     "(<code>pha runs recover %4</code> does the same).")
                      .arg(problems.front().toHtmlEscaped(), more, m_session->storePath().toHtmlEscaped(),
                           m_session->dir().toHtmlEscaped()));
  m_text->setToolTip(tr("PRAGMA quick_check:\n%1").arg(problems.join('\n')));
}

QString StoreDamageBanner::text() const { return isHidden() ? QString() : m_text->text(); }

}  // namespace pha::gui
