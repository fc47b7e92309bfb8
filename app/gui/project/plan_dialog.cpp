#include "gui/project/plan_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>
#include <thread>

#include "core/duration_format.h"
#include "runtime/project_plan.h"

namespace pha::gui {

namespace {
constexpr const char* kBeforeRunKey = "plan/beforeRun";
}

PlanDialog::PlanDialog(const QString& projectDir, bool withRun, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Plan of the project"));
  setObjectName("dialog.plan");
  auto* layout = new QVBoxLayout(this);
  m_status = new QLabel(tr("Reading the project and the store; timing a few training steps of each model the store "
                           "has no speed for..."), this);
  m_status->setWordWrap(true);
  layout->addWidget(m_status);
  m_table = new QTableWidget(0, 7, this);
  m_table->setHorizontalHeaderLabels({tr("Run"), tr("Steps"), tr("Tokens"), tr("Params"), tr("Tokens/param"),
                                      tr("Est. time"), tr("State")});
  m_table->horizontalHeaderItem(4)->setToolTip(
      tr("Training tokens per parameter; * marks early training (below the report's threshold, 20 by default: "
         "rankings are usually read at about 20)"));
  m_table->horizontalHeaderItem(5)->setToolTip(tr("Training tokens / measured training tokens per second"));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(m_table, 3);
  m_summary = new QPlainTextEdit(this);
  m_summary->setReadOnly(true);
  layout->addWidget(m_summary, 2);
  auto* buttons = new QDialogButtonBox(this);
  if (withRun) {
    m_beforeRun = new QCheckBox(tr("Show the plan before each run"), this);
    m_beforeRun->setChecked(showBeforeRun());
    connect(m_beforeRun, &QCheckBox::toggled, this, [](bool on) { setShowBeforeRun(on); });
    layout->addWidget(m_beforeRun);
    m_run = buttons->addButton(tr("Run project"), QDialogButtonBox::AcceptRole);
    m_run->setObjectName("planRunButton");
    m_run->setEnabled(false);
    m_runAll = buttons->addButton(tr("Train all again"), QDialogButtonBox::AcceptRole);
    m_runAll->setObjectName("planRunAllButton");
    m_runAll->hide();
    connect(m_run, &QPushButton::clicked, this, [this] { m_onlyToTrain = m_runAll->isVisible(); });
    connect(m_runAll, &QPushButton::clicked, this, [this] { m_onlyToTrain = false; });
  }
  buttons->addButton(withRun ? QDialogButtonBox::Cancel : QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(900, 560);

  // The plan is computed on a thread of its own (it may time training steps for a few seconds);
  // the result is posted to the application object and reaches the dialog only if it still
  // exists (QPointer, read on the GUI thread alone). Closing the dialog early never waits.
  QPointer<PlanDialog> self(this);
  const std::string dir = projectDir.toStdString();
  std::thread([self, dir] {
    auto plan = std::make_shared<runtime::PlanReport>();
    QString error;
    try {
      *plan = runtime::plan_project(dir);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(qApp, [self, plan, error] {
      if (!self) return;
      if (!error.isEmpty()) {
        self->m_error = error;
        self->m_status->setText(tr("No plan: %1").arg(error));
      } else {
        self->fill(*plan);
      }
      self->m_ready = true;
      if (self->m_run) self->m_run->setEnabled(error.isEmpty());
      emit self->planReady();
    }, Qt::QueuedConnection);
  }).detach();
}

PlanDialog::~PlanDialog() = default;

bool PlanDialog::showBeforeRun() { return QSettings().value(kBeforeRunKey, true).toBool(); }
void PlanDialog::setShowBeforeRun(bool on) { QSettings().setValue(kBeforeRunKey, on); }

QString PlanDialog::summaryText() const { return m_summary->toPlainText(); }

void PlanDialog::fill(const runtime::PlanReport& plan) {
  m_table->setRowCount(static_cast<int>(plan.runs.size()));
  int row = 0;
  for (const auto& r : plan.runs) {
    auto set = [&](int col, const QString& text, bool right = true) {
      auto* item = new QTableWidgetItem(text);
      if (right) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_table->setItem(row, col, item);
    };
    set(0, QString::fromStdString(r.name), false);
    set(1, QString::number(r.steps));
    set(2, QString::number(r.tokens));
    set(3, QString::number(r.n_params));
    set(4, QString::number(r.tokens_per_param, 'f', 2) + (r.early ? "*" : ""));
    set(5, !r.to_train ? QString("-") : r.seconds >= 0 ? QString::fromStdString(core::format_duration(r.seconds)) : "?");
    set(6, QString::fromStdString(r.state), false);
    m_table->item(row, 5)->setToolTip(QString::fromStdString(r.speed_source));
    ++row;
  }
  m_table->resizeColumnsToContents();
  // The text below the table is the CLI's (one renderer): totals, the time's method, the claims.
  const std::string text = runtime::render_plan_text(plan);
  const auto blank = text.find("\n\n", text.find("\n\n") + 2);  // after the table
  m_summary->setPlainText(QString::fromStdString(blank == std::string::npos ? text : text.substr(blank + 2)));
  if (m_run) {
    const int all = static_cast<int>(plan.runs.size());
    const int toTrain = static_cast<int>(plan.to_train);
    if (toTrain < all) {  // the question the queue would ask next, asked here once
      m_runAll->setText(tr("Train all %1 again").arg(all));
      m_runAll->setToolTip(tr("Every run trains again as a new run (a new id); with the same seed a finished run "
                              "trains to the same result"));
      m_runAll->show();
      m_run->setText(toTrain == 1 ? tr("Train the 1 run to train") : tr("Train the %1 runs to train").arg(toTrain));
      m_run->setVisible(toTrain > 0);
      m_run->setDefault(toTrain > 0);
    }
  }
  m_status->setText(tr("%1 of %2 runs to train, estimated %3 on this machine")
                        .arg(plan.to_train)
                        .arg(plan.runs.size())
                        .arg(QString::fromStdString(core::format_duration(plan.seconds))));
}

}  // namespace pha::gui
