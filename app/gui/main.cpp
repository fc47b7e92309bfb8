// pha-workbench: the desktop program.
#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QDir>
#include <QFile>
#include <unistd.h>
#include <QIcon>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/allocator.h"
#include "core/blas_core.h"
#include "device/system_info.h"
#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "gui/checks/responsiveness_bench.h"
#include "gui/report/report_view.h"
#include "gui/runs/run_browser.h"
#include "gui/checks/self_test.h"
#include "widgets/theme.h"

namespace {
// Qt warns on stderr when XDG_RUNTIME_DIR is unset (root shells, Xvfb sessions); give it a
// private per-user folder, as the session manager would.
void ensureRuntimeDir() {
  if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) return;
  const QString dir = QDir::tempPath() + "/runtime-" + QString::number(getuid());
  QDir().mkpath(dir);
  QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
  qputenv("XDG_RUNTIME_DIR", dir.toLocal8Bit());
}

// What the command line asks the window to do once it shows.
struct StartRequest {
  QStringList args;
  QString runName, dockName, compareTab;
  bool compare = false, start = false, profile = false;
  QString compareRuns;  // "4,5,6": these run ids, selected and compared
  QString evidence;     // "1:lens": the runs behind the report's claim 1, in the Lens (or "compare")
};

// Brings the Compare dock's tab titled `title` (case-insensitive, e.g. "config diff") to the
// front; an unknown title is reported on stderr with the titles there are.
void showCompareTab(pha::gui::MainWindow& window, const QString& title) {
  auto* dock = window.findChild<QDockWidget*>("dock.compare");
  auto* tabs = dock ? dock->findChild<QTabWidget*>() : nullptr;
  if (!tabs) return;
  QStringList titles;
  for (int i = 0; i < tabs->count(); ++i) {
    if (tabs->tabText(i).compare(title, Qt::CaseInsensitive) == 0) {
      tabs->setCurrentIndex(i);
      return;
    }
    titles << tabs->tabText(i);
  }
  std::fprintf(stderr, "pha-workbench: --compare-tab: no tab \"%s\"; the tabs are: %s\n", qPrintable(title),
               qPrintable(titles.join(", ")));
}

// Opens the project (the argument, else the last one, else the quickstart), then compares,
// selects, starts or measures as asked and raises the named dock.
void openOnStart(pha::gui::MainWindow& window, const StartRequest& r) {
  bool opened = false;
  if (!r.args.isEmpty()) {
    opened = window.openProject(r.args.first());
  } else {
    const QStringList recent = window.session()->recentProjects();
    opened = (!recent.isEmpty() && window.openProject(recent.first())) || window.openDefaultProject();
  }
  if (!opened) return;
  if (r.compare) window.compareFinishedRuns();
  if (!r.compareRuns.isEmpty()) {
    QList<qint64> ids;
    for (const QString& part : r.compareRuns.split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      const qint64 id = part.trimmed().toLongLong(&ok);
      if (!ok) {
        std::fprintf(stderr, "pha-workbench: --compare-runs: \"%s\" is not a run id (allowed: ids separated by commas, "
                             "e.g. 4,5,6)\n", qPrintable(part));
        return;
      }
      ids << id;
    }
    if (!window.runBrowser()->selectRuns(ids))
      std::fprintf(stderr, "pha-workbench: --compare-runs: not every id is a run of this project\n");
    else
      window.compareSelected();
  }
  if (!r.runName.isEmpty()) window.selectRunByName(r.runName);
  if (r.start) window.runProject();
  else if (r.profile) window.measureEfficiency();
  if (auto* dock = window.findChild<QDockWidget*>(r.dockName); dock && !r.dockName.isEmpty()) {
    dock->show();
    dock->raise();
  }
  if (!r.compareTab.isEmpty()) showCompareTab(window, r.compareTab);
  if (!r.evidence.isEmpty()) {
    const int claim = r.evidence.section(':', 0, 0).toInt();
    const QString view = r.evidence.section(':', 1);
    if (claim < 1 || (view != "compare" && view != "lens")) {
      std::fprintf(stderr, "pha-workbench: --evidence: \"%s\" is not CLAIM:VIEW (allowed: a claim number from 1 and "
                           "compare or lens, e.g. 1:lens)\n", qPrintable(r.evidence));
      return;
    }
    // Once the report is built (in the background): what the verdict's link opens.
    pha::gui::ReportView* report = window.reportView();
    auto* once = new QObject(&window);
    auto open = [report, claim, view, once] {
      if (report->isBuilding() || !report->report()) return;
      if (claim > static_cast<int>(report->report()->claims.size()))
        std::fprintf(stderr, "pha-workbench: --evidence: the report has %zu claim(s)\n", report->report()->claims.size());
      else
        report->requestEvidence(claim - 1, view);
      once->deleteLater();
    };
    QObject::connect(report, &pha::gui::ReportView::reportReady, once, open);
    if (!report->isBuilding() && report->report()) open();
  }
}

// The program's command-line reference: every option, in one place.
struct Options {
  QCommandLineOption selfTest{"self-test", "Check that the compiled-in resources load (icon, palettes), print the result and exit"};
  QCommandLineOption showRun{"run", "Show this run of the project (by name; the newest when several)", "name"};
  QCommandLineOption compareAll{"compare", "Compare the project's finished runs on start"};
  QCommandLineOption startRuns{"start", "Start training the project's runs on start"};
  QCommandLineOption evidence{"evidence", "Open the runs behind the report's claim N in Compare or in the Lens's Tokens "
                                          "tab (the verdict's links), e.g. 1:lens", "claim:view"};
  QCommandLineOption compareRuns{"compare-runs", "Select and compare these runs of the project on start (ids, e.g. 4,5,6)",
                                 "ids"};
  QCommandLineOption compareTab{"compare-tab", "With --compare: show this Compare tab (Curves, Mixer, Metrics, Config diff, "
                                               "Pareto, Length)", "title"};
  QCommandLineOption raiseDock{"show-dock", "Bring this dock to the front (objectName, e.g. dock.efficiency)", "name"};
  QCommandLineOption measure{"measure-efficiency", "Measure the project's efficiency profile on start"};
  QCommandLineOption bench{"bench-responsiveness",
                           "Benchmark: train a copy of the project (default: the quickstart template) in the shown "
                           "window while measuring event-loop stalls and plot redraws; print the figures and exit"};
  QCommandLineOption benchSteps{"bench-steps", "Benchmark: training steps per run (0: the project's; default 100)", "n",
                                "100"};
  QCommandLineOption benchProbe{"bench-probe-ms", "Benchmark: probe timer interval in ms (default 5)", "ms", "5"};
  QCommandLineOption benchNoProfile{"bench-no-profile", "Benchmark: leave out the project's efficiency profile"};
  QCommandLineOption benchSearch{"bench-search", "Benchmark: run the project's search (its \"search\" section, "
                                                 "Run > Search) instead of its runs"};

  void addTo(QCommandLineParser& cli) {
    cli.setApplicationDescription("PHA Workbench: build, train, measure and compare hybrid GSS + attention models");
    cli.addHelpOption();
    cli.addVersionOption();
    for (const auto* o : {&selfTest, &showRun, &compareAll, &compareRuns, &evidence, &startRuns, &compareTab, &raiseDock, &measure, &bench,
                          &benchSteps, &benchProbe, &benchNoProfile, &benchSearch})
      cli.addOption(*o);
    cli.addPositionalArgument("project", "Project folder to open (default: the last one, else the quickstart)", "[project]");
  }
};

// --help and --version need no display: answered before the window's QApplication exists
// (which aborts without one). Returns true when it answered.
bool answeredWithoutDisplay(int argc, char** argv, int* exitCode) {
  bool help = false, version = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    help = help || a == "--help" || a == "-h" || a == "--help-all" || a == "-?";
    version = version || a == "--version" || a == "-v";
  }
  if (!help && !version) return false;
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName("pha-workbench");
  QCoreApplication::setApplicationVersion(PHA_VERSION);
  QCommandLineParser cli;
  Options options;
  options.addTo(cli);
  cli.parse(app.arguments());
  if (help) std::fputs(qPrintable(cli.helpText()), stdout);
  else std::printf("pha-workbench %s\n", PHA_VERSION);
  *exitCode = 0;
  return true;
}

// A window needs a display; without one Qt aborts (exit 134) with a message about plugins.
bool hasDisplay() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
         !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}
}  // namespace

// main is longer than the usual 60 lines: start-up, the benchmark and the window, in order.
int main(int argc, char** argv) {
  int answered = 0;
  if (answeredWithoutDisplay(argc, argv, &answered)) return answered;
  if (!hasDisplay()) {
    std::fprintf(stderr,
                 "pha-workbench: no display (DISPLAY and WAYLAND_DISPLAY are not set): run it in a desktop session, "
                 "set QT_QPA_PLATFORM (e.g. offscreen), or use the headless program `pha` (pha --help)\n");
    return 2;
  }
  pha::core::apply_blas_core_policy_at_startup(argv);  // may re-run the program with OPENBLAS_CORETYPE set
  pha::core::apply_allocator_policy_at_startup();  // before the first large allocation
  ensureRuntimeDir();
  QApplication app(argc, argv);
  Q_INIT_RESOURCE(pha);
  QApplication::setOrganizationName("pha-workbench");
  QApplication::setApplicationName("pha-workbench");
  QApplication::setApplicationVersion(PHA_VERSION);
  QApplication::setWindowIcon(QIcon(":/pha/icons/pha-workbench.svg"));

  QCommandLineParser cli;
  Options options;
  options.addTo(cli);
  cli.process(app);
  const QCommandLineOption &selfTest = options.selfTest, &showRun = options.showRun, &compareAll = options.compareAll,
                           &startRuns = options.startRuns, &compareTab = options.compareTab,
                           &raiseDock = options.raiseDock, &measure = options.measure, &bench = options.bench,
                           &benchSteps = options.benchSteps, &benchProbe = options.benchProbe,
                           &benchNoProfile = options.benchNoProfile, &benchSearch = options.benchSearch;
  if (cli.isSet(selfTest)) return pha::gui::runSelfTest();

  if (cli.isSet(bench)) {
    pha::gui::ResponsivenessOptions o;
    o.project = cli.positionalArguments().value(0);
    o.steps = cli.value(benchSteps).toInt();
    o.probeMs = std::max(1, cli.value(benchProbe).toInt());
    o.profile = !cli.isSet(benchNoProfile);
    o.search = cli.isSet(benchSearch);
    pha::device::configure_threads(0);
    pha::widgets::applyTheme(pha::widgets::Theme::Light);
    return pha::gui::runResponsivenessBench(o);
  }

  QSettings settings;
  pha::device::configure_threads(settings.value("engine/threads", 0).toInt());
  pha::widgets::applyTheme(pha::widgets::themeFromName(settings.value("ui/theme", "light").toString()));

  pha::gui::MainWindow window;
  window.restoreSettings();
  window.show();
  // Open after the event loop starts so the window paints first.
  const StartRequest request{cli.positionalArguments(), cli.value(showRun), cli.value(raiseDock), cli.value(compareTab),
                             cli.isSet(compareAll), cli.isSet(startRuns), cli.isSet(measure),
                             cli.value(options.compareRuns), cli.value(options.evidence)};
  QTimer::singleShot(0, &window, [&window, request] { openOnStart(window, request); });
  return app.exec();
}
