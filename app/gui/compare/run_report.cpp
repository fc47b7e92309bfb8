#include "gui/compare/run_report.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTextStream>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

#include "gui/compare/compare_data.h"
#include "gui/compare/metrics_csv.h"
#include "core/duration_format.h"
#include "core/provenance_fields.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/plot_export.h"
#include "runtime/export.h"

#include "widgets/csv_file.h"  // widgets::writeTextFile, the window's one file writer

namespace pha::gui {

namespace store = pha::store;

namespace {

const QSize kPlotSize(900, 520);

QString esc(const QString& text) { return text.toHtmlEscaped(); }
QString esc(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }
QString num(double v) { return std::isnan(v) ? QStringLiteral("NaN") : QString::number(v, 'g', 6); }
QString when(std::int64_t ms) {
  return ms > 0 ? QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODate) : QStringLiteral("—");
}

bool writeText(const QString& path, const QString& text, QString* error) { return widgets::writeTextFile(path, text, error); }

QString imageTag(const QString& pngPath, const QString& alt) {
  QFile file(pngPath);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QStringLiteral("<img alt=\"%1\" src=\"data:image/png;base64,%2\">\n")
      .arg(esc(alt), QString::fromLatin1(file.readAll().toBase64()));
}

// The loss-like keys (every key when none ends in "loss"), overlaid.
bool writeCurves(store::Store& s, const LoadedRun& run, const QString& dir, QString* error) {
  QStringList keys;
  for (const auto& k : run.keys)
    if (QString::fromStdString(k).endsWith("loss")) keys << QString::fromStdString(k);
  if (keys.isEmpty())
    for (const auto& k : run.keys) keys << QString::fromStdString(k);
  QCustomPlot plot;
  plot.setWindowTitle(run.label);
  plot.xAxis->setLabel(QObject::tr("step"));
  plot.yAxis->setLabel(keys.size() == 1 ? keys.front() : QObject::tr("value"));
  plot.legend->setVisible(true);
  for (int k = 0; k < keys.size(); ++k) {
    QVector<double> x, y;
    for (const auto& b : s.read_metric(run.ref.runId, keys[k].toStdString(), 1000)) {
      x << b.x_last;
      y << b.last;
    }
    QCPGraph* g = plot.addGraph();
    g->setName(keys[k]);
    g->setPen(QPen(runColor(k), 2.0));
    g->setData(x, y, true);
  }
  plot.rescaleAxes();
  widgets::padAxisRange(plot.yAxis);
  return widgets::exportPlot(&plot, dir + "/curves.png", error, kPlotSize) &&
         widgets::exportPlot(&plot, dir + "/curves.pdf", error, kPlotSize);
}

bool writeMixer(const LoadedRun& run, const QString& dir, QString* error) {
  const auto& last = run.mixers.back();
  widgets::MixerHeatmap heatmap;
  heatmap.resize(520, 620);
  heatmap.setMatrix(last.layers, last.branches, last.weights);
  heatmap.plot()->setWindowTitle(QObject::tr("%1, mixer at step %2").arg(run.label).arg(last.step));
  return widgets::exportPlot(heatmap.plot(), dir + "/mixer.png", error, QSize(520, 620));
}

bool writeCsvFiles(store::Store& s, const LoadedRun& run, const QString& dir, QString* error) {
  std::vector<runtime::MetricCsvSeries> series;
  for (const auto& k : run.keys) series.push_back({run.ref.runId, k, s.read_metric_full(run.ref.runId, k)});
  if (!writeMetricsCsv(dir + "/metrics.csv", series, error)) return false;
  QString evals = "step,task,seq_len,metric,value\n";
  for (const auto& e : run.evals)
    evals += QStringLiteral("%1,%2,%3,%4,%5\n").arg(e.step).arg(widgets::csvField(QString::fromStdString(e.task)))
                 .arg(e.seq_len).arg(widgets::csvField(QString::fromStdString(e.metric))).arg(e.value, 0, 'g', QLocale::FloatingPointShortest);
  QString perf = "seq_len,batch,tokens_per_s,peak_bytes,device,phase,method\n";
  for (const auto& p : run.perf)
    perf += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n").arg(p.seq_len).arg(p.batch).arg(p.tokens_per_s, 0, 'g', QLocale::FloatingPointShortest)
                .arg(p.peak_bytes).arg(widgets::csvField(QString::fromStdString(p.device)),
                                       widgets::csvField(QString::fromStdString(p.phase)),
                                       widgets::csvField(QString::fromStdString(p.method)));
  return writeText(dir + "/evals.csv", evals, error) && writeText(dir + "/perf.csv", perf, error);
}

QString row(const QString& name, const QString& value) {
  return QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(esc(name), esc(value));
}

QString summaryTable(const LoadedRun& run, const QStringList& tags) {
  const auto& i = run.info;
  QString html = "<table class=\"kv\">\n";
  html += row("run id", QString::number(i.id)) + row("name", QString::fromStdString(i.name)) +
          row("project", QString::fromStdString(i.project)) + row("variant", QString::fromStdString(i.variant)) +
          row("status", QString::fromUtf8(store::to_string(i.status))) +
          (i.error.empty() ? QString() : row("error", QString::fromStdString(i.error))) +
          row("parameters", i.n_params > 0 ? QString::number(i.n_params) : QObject::tr("not recorded")) +
          row("device", QString::fromStdString(i.device)) + row("created", when(i.created_at)) +
          row("started", when(i.started_at)) + row("ended", when(i.ended_at)) +
          row("duration", i.started_at > 0 && i.ended_at > 0 ? QString::fromStdString(core::format_duration((i.ended_at - i.started_at) / 1000.0)) : "—") +
          row("config hash", QString::fromStdString(i.config_hash)) + row("tags", tags.join(", ")) +
          row("notes", QString::fromStdString(i.notes)) + row("store", run.ref.storePath);
  const auto env = core::provenance_fields(i.env_json);
  if (env.empty()) html += row("produced by", QObject::tr("not recorded (a program older than store schema 7)"));
  for (const auto& [k, v] : env) html += row("env." + QString::fromStdString(k), QString::fromStdString(v));
  return html + "</table>\n";
}

QString metricTable(const LoadedRun& run) {
  QString html = "<table>\n<tr><th>key</th><th>points</th><th>final</th><th>final step</th><th>min</th>"
                 "<th>max</th><th>best</th><th>best step</th></tr>\n";
  for (const auto& [key, s] : run.summaries) {
    auto best = run.best.find(key);
    html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td><td>%7</td>"
                           "<td>%8</td></tr>\n")
                .arg(esc(key)).arg(s.count).arg(num(s.last)).arg(s.last_step).arg(num(s.min)).arg(num(s.max))
                .arg(best != run.best.end() ? num(best->second.value) : "—")
                .arg(best != run.best.end() ? QString::number(best->second.step) : "—");
  }
  return html + "</table>\n";
}

QString evalsTable(const LoadedRun& run) {
  if (run.evals.empty()) return "<p>No evaluations recorded.</p>\n";
  QString html = "<table>\n<tr><th>step</th><th>task</th><th>T</th><th>metric</th><th>value</th></tr>\n";
  for (const auto& e : run.evals)
    html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n")
                .arg(e.step).arg(esc(e.task)).arg(e.seq_len).arg(esc(e.metric)).arg(num(e.value));
  return html + "</table>\n";
}

QString perfTable(const LoadedRun& run) {
  if (run.perf.empty()) return "<p>No performance measurements recorded.</p>\n";
  QString html = "<table>\n<tr><th>T</th><th>batch</th><th>tokens/s</th><th>peak memory</th><th>device</th>"
                 "<th>phase</th><th>method</th></tr>\n";
  for (const auto& p : run.perf)
    html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td><td>%7</td></tr>\n")
                .arg(p.seq_len).arg(p.batch).arg(num(p.tokens_per_s)).arg(widgets::formatBytes(double(p.peak_bytes)))
                .arg(esc(p.device), esc(p.phase), esc(p.method));
  return html + "</table>\n";
}

const char* kStyle =
    "body{font-family:sans-serif;margin:2em;max-width:1000px}table{border-collapse:collapse;margin:1em 0}"
    "th,td{border:1px solid #bbb;padding:3px 8px;text-align:left}td{font-variant-numeric:tabular-nums}"
    "pre{background:#f4f4f4;padding:1em;overflow:auto}img{max-width:100%;border:1px solid #ddd}";

}  // namespace

bool writeRunReport(const QString& storePath, qint64 runId, const QString& outputDir, QString* error) {
  StoreCache cache;
  const LoadedRun run = loadRun(cache, RunRef{storePath, runId});
  if (!run.ok()) {
    if (error) *error = run.error;
    return false;
  }
  if (!QDir().mkpath(outputDir)) {
    if (error) *error = QObject::tr("Cannot create the report folder %1").arg(outputDir);
    return false;
  }
  store::Store* s = cache.store(storePath, error);
  if (!s) return false;
  try {
    QStringList tags;
    for (const auto& t : s->tags(runId)) tags << QString::fromStdString(t);
    const QString configText = run.config.is_null() ? QString::fromStdString(run.info.config_json)
                                                    : QString::fromStdString(run.config.dump(2));
    if (!writeText(outputDir + "/config.json", configText + "\n", error)) return false;
    if (!writeCsvFiles(*s, run, outputDir, error)) return false;
    QString images;
    if (!run.keys.empty()) {
      if (!writeCurves(*s, run, outputDir, error)) return false;
      images += "<h2>Curves</h2>\n" + imageTag(outputDir + "/curves.png", "curves");
    }
    if (!run.mixers.empty()) {
      if (!writeMixer(run, outputDir, error)) return false;
      images += QStringLiteral("<h2>Mixer weights at step %1</h2>\n").arg(run.mixers.back().step) +
                imageTag(outputDir + "/mixer.png", "mixer");
    }
    QString html = QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Run report: %1</title>"
                                  "<style>%2</style></head><body>\n<h1>Run report: %1</h1>\n")
                       .arg(esc(run.label), kStyle);
    html += summaryTable(run, tags) + "<h2>Metrics</h2>\n" +
            (run.summaries.empty() ? QString("<p>No metrics recorded.</p>\n") : metricTable(run)) + images +
            "<h2>Evaluations</h2>\n" + evalsTable(run) + "<h2>Performance</h2>\n" + perfTable(run) +
            "<h2>Configuration</h2>\n<pre>" + esc(configText) + "</pre>\n" +
            "<p>Files: config.json, metrics.csv (every point), evals.csv, perf.csv" +
            (run.keys.empty() ? "" : ", curves.png, curves.pdf") + (run.mixers.empty() ? "" : ", mixer.png") +
            QStringLiteral(". Written %1 by PHA Workbench.</p>\n</body></html>\n")
                .arg(QDateTime::currentDateTime().toString(Qt::ISODate));
    return writeText(outputDir + "/index.html", html, error);
  } catch (const std::exception& e) {
    if (error) *error = QObject::tr("Writing the report of run %1 failed: %2").arg(runId).arg(QString::fromUtf8(e.what()));
    return false;
  }
}

}  // namespace pha::gui
