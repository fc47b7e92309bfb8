#include "gui/compare/compare_widget.h"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include "gui/compare/config_diff_view.h"
#include "gui/compare/curves_tab.h"
#include "gui/compare/length_tab.h"
#include "gui/compare/metrics_tab.h"
#include "gui/compare/mixer_tab.h"
#include "gui/compare/parallel_coords_tab.h"
#include "gui/compare/pareto_tab.h"
#include "gui/compare/scaling_tab.h"

namespace pha::gui {

CompareWidget::CompareWidget(QWidget* parent) : QWidget(parent) {
  setObjectName("compareWidget");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  m_message = new QLabel(this);
  m_message->setObjectName("compareMessage");
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_tabs = new QTabWidget(this);
  m_curves = new CurvesTab(m_cache, m_tabs);
  m_mixer = new MixerTab(m_tabs);
  m_metrics = new MetricsTab(m_tabs);
  m_diff = new ConfigDiffView(m_tabs);
  m_pareto = new ParetoTab(m_tabs);
  m_length = new LengthTab(m_tabs);
  m_scaling = new ScalingTab(m_tabs);
  m_parallel = new ParallelCoordsTab(m_tabs);
  m_tabs->addTab(m_curves, tr("Curves"));
  m_tabs->addTab(m_mixer, tr("Mixer"));
  m_tabs->addTab(m_metrics, tr("Metrics"));
  m_tabs->addTab(m_diff, tr("Config diff"));
  m_tabs->addTab(m_pareto, tr("Pareto"));
  m_tabs->addTab(m_length, tr("Length"));
  m_tabs->addTab(m_scaling, tr("Scaling"));
  m_tabs->addTab(m_parallel, tr("Parallel"));
  layout->addWidget(m_message);
  layout->addWidget(m_tabs, 1);
  setRuns({});
}

CompareWidget::~CompareWidget() = default;

void CompareWidget::setRuns(const QList<RunRef>& runs) {
  m_refs = runs;
  reload();
}

void CompareWidget::reload() {
  m_loaded = loadRuns(m_cache, m_refs);
  QStringList problems, labels, configProblems;
  std::vector<nlohmann::json> configs;
  for (const auto& run : *m_loaded) {
    if (!run.ok() && !problems.contains(run.error)) problems << run.error;  // one line per distinct problem
    if (!run.configError.isEmpty()) configProblems << QStringLiteral("%1: %2").arg(run.label, run.configError);
    labels << run.label;
    // What produced each run (its provenance, docs/store.md) is diffed beside its config as
    // env.<key>: a run trained in bf16 against one in fp32 shows as a differing row.
    nlohmann::json withEnv = run.config;
    const nlohmann::json env = nlohmann::json::parse(run.info.env_json.empty() ? "{}" : run.info.env_json, nullptr, false);
    if (withEnv.is_object() && env.is_object() && !env.empty()) withEnv["env"] = env;
    configs.push_back(std::move(withEnv));
  }
  if (m_refs.isEmpty()) problems << tr("Select two or more saved runs (from any project) to compare them.");
  else if (m_refs.size() == 1) problems << tr("One run selected: add another to compare.");
  m_message->setText(problems.join('\n'));
  m_message->setVisible(!problems.isEmpty());

  m_curves->setRuns(m_loaded);
  m_mixer->setRuns(m_loaded);
  m_metrics->setRuns(m_loaded);
  m_diff->setConfigs(labels, configs, configProblems);
  m_pareto->setRuns(m_loaded);
  m_length->setRuns(m_loaded);
  m_scaling->setRuns(m_loaded);
  m_parallel->setRuns(m_loaded);
  emit runsLoaded(static_cast<int>(m_loaded->size()));
}

void CompareWidget::clear() {
  m_refs.clear();
  reload();
  m_cache.clear();
}

const LoadedRuns& CompareWidget::loadedRuns() const { return *m_loaded; }

QString CompareWidget::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

}  // namespace pha::gui
