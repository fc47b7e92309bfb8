// `pha runs list|show` and `pha export`: read the run store (the same one the GUI reads). The list
// groups seeded replicas (runs.run_group) into one line each, with mean ± std (n).
#include "cmd_runs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/groups.h"
#include "cmd_progress.h"
#include "commands.h"
#include "core/error.h"
#include "core/provenance_fields.h"
#include "runtime/export.h"
#include "store/run_times.h"
#include "core/duration_format.h"
#include "runtime/job_data.h"
#include "project/project_files.h"
#include "runtime/runs_export.h"
#include "runtime/trainer.h"

namespace pha::cli {

namespace fs = std::filesystem;

std::string RunLocator::store_path() const {
  std::string p = !store.empty() ? store : !project.empty() ? project::store_path_in(project) : "";
  if (p.empty()) throw core::Error("--project", "give --project DIR or --store FILE");
  if (!fs::exists(p)) throw core::Error(p, "no run store here yet (train something first)");
  return p;
}

void add_locator_options(CLI::App* cmd, RunLocator& where, bool needs_run) {
  cmd->add_option("--project", where.project, "Project folder (its runs.sqlite)");
  cmd->add_option("--store", where.store, "Run store file (instead of --project)");
  auto* r = cmd->add_option("--run", where.run, "Run id (see `pha runs list`)");
  if (needs_run) r->required();
}

store::RunInfo require_run(store::Store& s, int64_t id) {
  auto r = s.get_run(id);
  if (!r) throw core::Error(s.path(), "no run with id " + std::to_string(id) + " (see `pha runs list`)");
  return *r;
}

int64_t resolve_run(store::Store& s, const std::string& ref, const std::string& arg) {
  if (ref.empty()) throw core::Error(arg, "give a run id or name (see `pha runs list`)");
  if (ref.find_first_not_of("0123456789") == std::string::npos && ref.size() < 18) {
    const int64_t id = std::stoll(ref);
    if (!s.get_run(id)) throw core::Error(arg, "no run with id " + ref + " in " + s.path() + " (see `pha runs list`)");
    return id;
  }
  std::vector<int64_t> ids;
  for (const auto& e : s.list_runs())
    if (e.run.name == ref) ids.push_back(e.run.id);
  if (ids.empty()) throw core::Error(arg, "no run named \"" + ref + "\" in " + s.path() + " (see `pha runs list`)");
  if (ids.size() > 1) {
    std::sort(ids.begin(), ids.end());
    std::string list;
    for (int64_t id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
    throw core::Error(arg, std::to_string(ids.size()) + " runs are named \"" + ref + "\" (ids " + list + "): give the id");
  }
  return ids.front();
}

namespace {

std::string when(int64_t ms) {
  if (ms <= 0) return "-";
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", std::localtime(&t));
  return buf;
}

// The value columns of `pha runs list`: final train loss, validation loss and bits per byte
// (text runs), held-out accuracy (task runs).
constexpr size_t kValueColumns = 4;

std::string value_text(const analysis::Stats& s) {
  if (s.n == 0) return "-";
  char buf[64];
  if (s.n == 1) {
    std::snprintf(buf, sizeof(buf), "%.4f", s.mean);
  } else {
    std::snprintf(buf, sizeof(buf), "%.4f ± %.4f (%zu)", s.mean, s.std, s.n);
  }
  return buf;
}

// Labels of the run's held-out task sets, from the data section its config recorded.
std::map<std::string, std::string> held_out_labels_of(const store::RunInfo& r) {
  try {
    return runtime::held_out_labels(nlohmann::json::parse(r.config_json).value("data", nlohmann::json()));
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

// A layer without a mixed sub-layer has a row of NaN (model_introspection.h): say so, and say
// when the model has no mixer at all (transformer, sequential, gss-only).
// The run's provenance (docs/store.md "Provenance"): the keys that change numbers first.
void print_provenance(const std::string& env_json) {
  const auto fields = core::provenance_fields(env_json);
  if (fields.empty()) {
    std::printf("  produced by  not recorded (a run of a program older than store schema 7)\n");
    return;
  }
  std::printf("  produced by\n");
  std::set<std::string> shown;
  auto line = [&](const std::string& k) {
    auto it = fields.find(k);
    if (it == fields.end() || !shown.insert(k).second) return;
    std::printf("    %-18s %s\n", k.c_str(), it->second.c_str());
  };
  for (const auto& k : core::provenance_summary_keys()) line(k);
  for (const auto& [k, v] : fields) line(k);
}

void print_mixer(const store::MixerSnapshot& m) {
  auto mixed = [&](int l) {
    for (int b = 0; b < m.branches; ++b)
      if (!std::isnan(m.weights[static_cast<size_t>(l * m.branches + b)])) return true;
    return false;
  };
  int layers_mixed = 0;
  for (int l = 0; l < m.layers; ++l) layers_mixed += mixed(l);
  if (layers_mixed == 0) {
    std::printf("mixer: none (every sub-layer of this model has a single branch: nothing is mixed)\n");
    return;
  }
  std::printf("mixer weights at step %lld (gss attn ffn):\n", static_cast<long long>(m.step));
  for (int l = 0; l < m.layers; ++l) {
    std::printf("  layer %2d:", l);
    if (!mixed(l)) std::printf(" no mixed sub-layer");
    for (int b = 0; mixed(l) && b < m.branches; ++b)
      std::printf(" %.3f", m.weights[static_cast<size_t>(l * m.branches + b)]);
    std::printf("\n");
  }
}

// "test/<first held-out set>/accuracy" of a task run (the final evaluation's accuracy on
// data.test[0], "test" by default); empty for text runs.
std::string held_out_key(const std::string& config_json) {
  const nlohmann::json c = nlohmann::json::parse(config_json, nullptr, false);
  if (c.is_discarded() || !c.contains("data") || c["data"].value("kind", "") != "task") return "";
  const auto& test = c["data"].value("test", nlohmann::json::array());
  const std::string set = test.is_array() && !test.empty() && test[0].contains("name") && test[0]["name"].is_string()
                              ? test[0]["name"].get<std::string>()
                              : "test";
  return "test/" + set + "/accuracy";
}

std::string status_text(const analysis::RunGroup& g) {
  if (g.runs.size() == 1) return store::to_string(g.runs[0].run.status);
  std::map<std::string, int> count;
  for (const auto& e : g.runs) ++count[store::to_string(e.run.status)];
  std::string out;
  for (const auto& [status, n] : count) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  return out;
}

std::string ids_text(const analysis::RunGroup& g) {
  std::string out;
  for (size_t i = 0; i < g.runs.size(); ++i) {
    const std::string id = std::to_string(g.runs[i].run.id);
    if (out.size() + id.size() > 12 && i + 1 < g.runs.size()) return out + ",…";
    out += (out.empty() ? "" : ",") + id;
  }
  return out;
}

// Characters on a terminal: UTF-8 continuation bytes take no column ("±", "…").
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Prints rows as columns as wide as their widest cell; the first column right-aligned (ids).
void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], display_width(r[c]));
    }
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const std::string pad(width[c] - display_width(r[c]), ' ');
      line += c == 0 ? pad + r[c] : "  " + r[c] + (c + 1 < r.size() ? pad : "");
    }
    std::printf("%s\n", line.c_str());
  }
}

// The labels a line of `pha runs list` ends with: tags, and the notes cut to one short line.
struct Labels {
  std::string tags, notes;
};

std::string one_line(const std::string& text, size_t max_chars = 40) {
  std::string line = text.substr(0, text.find('\n'));
  size_t chars = 0, cut = line.size();
  for (size_t i = 0; i < line.size(); ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 && chars++ == max_chars) cut = i;
  return cut < line.size() || line.size() < text.size() ? line.substr(0, cut) + "…" : line;
}

std::string joined(const std::set<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (char c : text) out += c == '\n' ? "\n" + indent : std::string(1, c);
  return out;
}

Labels labels_of(store::Store& s, const std::vector<store::RunListEntry>& runs) {
  std::set<std::string> tags, notes;
  for (const auto& e : runs) {
    for (const auto& t : s.tags(e.run.id)) tags.insert(t);
    if (!e.run.notes.empty()) notes.insert(e.run.notes);
  }
  return {joined(tags, ","), one_line(joined(notes, " | "))};
}

// The run table's "Train time" (store/run_times.h): the run's own clock at its last step; for a
// group line, the mean over its replicas.
std::string training_time_text(store::Store& s, const std::vector<const store::RunListEntry*>& runs) {
  double sum = 0;
  int n = 0;
  for (const auto* e : runs) {
    const double t = store::run_times(s, e->run).training_s;
    if (t >= 0) sum += t, ++n;
  }
  return n == 0 ? "-" : core::format_duration(sum / n) + (n > 1 ? " (mean)" : "");
}

std::vector<std::string> row_of(const std::string& ids, const std::string& name, const store::RunListEntry& e,
                                const std::string& status, const std::vector<std::string>& values, const Labels& l,
                                const std::string& time) {
  std::vector<std::string> row = {ids, name, e.run.variant, store::to_string(e.run.kind), status,
                                  std::to_string(e.run.n_params)};
  row.insert(row.end(), values.begin(), values.end());
  row.push_back(when(e.run.started_at));
  row.push_back(time);
  row.push_back(l.tags.empty() ? "-" : l.tags);
  row.push_back(l.notes);
  return row;
}

std::vector<std::string> run_values(const store::RunListEntry& e) {
  std::vector<std::string> out;
  for (const auto& m : e.summaries) out.push_back(m && !std::isnan(m->last) ? value_text(analysis::summarize({m->last})) : "-");
  return out;
}

std::vector<std::string> run_row(store::Store& s, const store::RunListEntry& e, const std::string& name) {
  return row_of(std::to_string(e.run.id), name, e, store::to_string(e.run.status), run_values(e), labels_of(s, {e}),
                training_time_text(s, {&e}));
}

struct ListOpts {
  RunLocator where;
  RunFilterOpts which;
  bool replicas = false;
};

// The lines of one group: mean ± std (n) over its replicas (the newest finished run of each
// seed; a group without a finished run shows its newest run's values), or each run on its own
// line when the group has one seed. With `expand` the group's runs follow its line.
void add_group_rows(store::Store& s, const analysis::RunGroup& g, bool expand, std::vector<std::vector<std::string>>& rows) {
  if (!analysis::summarizes_replicas(g)) {  // one run, or one seed trained again: each its own line
    for (const auto& e : g.runs) rows.push_back(run_row(s, e, e.run.name));
    return;
  }
  std::vector<std::string> values;
  for (size_t k = 0; k < kValueColumns; ++k)
    values.push_back(g.replicas.empty() ? run_values(g.runs.back())[k] : value_text(analysis::replica_stats(g, k)));
  std::vector<const store::RunListEntry*> replicas;
  for (std::size_t i : g.replicas) replicas.push_back(&g.runs[i]);
  if (replicas.empty()) replicas.push_back(&g.runs.back());
  rows.push_back(row_of(ids_text(g), g.name, g.runs.front(), status_text(g), values, labels_of(s, g.runs),
                        training_time_text(s, replicas)));
  if (!expand) return;
  for (const auto& e : g.runs)
    rows.push_back(run_row(s, e, "  " + e.run.name + (e.run.seed >= 0 ? " (seed " + std::to_string(e.run.seed) + ")" : "")));
}

// One line per group of replicas (add_group_rows), the runs the filters admit.
void list_runs(const ListOpts& o) {
  auto s = store::Store::open(o.where.store_path());
  store::RunListQuery q;
  q.summary_keys = {"train/loss", "val/loss", "val/bpb", "val/accuracy"};
  q.newest_first = false;
  q.include_config = true;
  std::vector<store::RunListEntry> entries = runtime::select_runs(s, o.which.filter(), q);
  for (auto& e : entries) {
    const std::string key = held_out_key(e.run.config_json);
    if (!key.empty())
      if (auto m = s.summary(e.run.id, key)) e.summaries[kValueColumns - 1] = m;
  }
  std::vector<std::vector<std::string>> rows = {{"id", "group / run", "variant", "kind", "status", "params",
                                                 "final train loss", "final val loss", "final val bpb",
                                                 "final accuracy", "started", "train time", "tags", "notes"}};
  for (const analysis::RunGroup& g : analysis::group_runs(entries))
    add_group_rows(s, g, o.replicas || !o.which.group.empty(), rows);
  print_table(rows);
}

void show_run(const RunLocator& where, bool json_out) {
  auto s = store::Store::open(where.store_path());
  const store::RunInfo r = require_run(s, where.run);
  if (json_out) {
    std::cout << runtime::export_run_json(s, r.id, {"__none__"})["run"].dump(2) << "\n";
    return;
  }
  std::printf("run %lld: %s (%s)\n  project  %s\n  kind     %s\n  status   %s%s%s\n  params   %lld\n  device   %s\n  started  %s\n  ended    %s\n",
              static_cast<long long>(r.id), r.name.c_str(), r.variant.c_str(), r.project.c_str(),
              store::to_string(r.kind), store::to_string(r.status), r.error.empty() ? "" : ": ", r.error.c_str(),
              static_cast<long long>(r.n_params), r.device.c_str(), when(r.started_at).c_str(), when(r.ended_at).c_str());
  if (const store::RunTimes t = store::run_times(s, r); t.wall_s >= 0)
    std::printf("  time     %s training, %s wall (%s; %s)\n", core::format_duration(t.training_s).c_str(),
                core::format_duration(t.wall_s).c_str(), store::kTrainingTimeMeaning, store::kWallTimeMeaning);
  if (!r.group.empty())
    std::printf("  group    %s%s\n", r.group.c_str(), r.seed >= 0 ? (" (seed " + std::to_string(r.seed) + ")").c_str() : "");
  if (r.world_size > 1) std::printf("  processes %d (%s, data-parallel)\n", r.world_size, r.backend.c_str());
  print_provenance(r.env_json);
  const auto tags = s.tags(r.id);
  if (!tags.empty()) std::printf("  tags     %s\n", joined({tags.begin(), tags.end()}, ", ").c_str());
  if (!r.notes.empty()) std::printf("  notes    %s\n", indented(r.notes, "           ").c_str());
  const auto keys = s.metric_keys(r.id);
  if (keys.empty())
    std::printf("metrics: none (%s)\n", r.kind == store::RunKind::Profile ? "a profile run records perf rows, below"
                                                                           : "no step was recorded");
  else
    std::printf("metrics (last / min / max / best step / points):\n");
  for (const auto& k : keys) {
    auto m = s.summary(r.id, k);
    if (m)
      std::printf("  %-24s %12.5g %12.5g %12.5g %8lld %8lld\n", k.c_str(), m->last, m->min, m->max,
                  static_cast<long long>(m->best_step), static_cast<long long>(m->count));
  }
  const auto evals = s.evals(r.id);
  if (!evals.empty()) std::printf("evaluations:\n");
  const auto labels = held_out_labels_of(r);
  for (const auto& e : evals) {
    // A held-out set says what it is (its T range and size); the sweeps' rows are one T each.
    auto label = labels.find(e.task);
    const std::string where = label != labels.end() ? "(" + label->second + ")" : "T=" + std::to_string(e.seq_len);
    std::printf("  step %-7lld %-22s %-28s %-15s %.5g\n", static_cast<long long>(e.step), e.task.c_str(),
                where.c_str(), e.metric.c_str(), e.value);
  }
  const auto perf = s.perf(r.id);
  if (!perf.empty()) std::printf("efficiency (T, batch, phase: tokens/s, peak memory; device, how measured):\n");
  for (const auto& p : perf)
    std::printf("  T=%-6lld batch %-4lld %-8s %12.0f tokens/s %10s  %s, %s\n", static_cast<long long>(p.seq_len),
                static_cast<long long>(p.batch), p.phase.c_str(), p.tokens_per_s, format_bytes(p.peak_bytes).c_str(),
                p.device.c_str(), p.method.empty() ? "method not recorded" : p.method.c_str());
  const auto steps = s.mixer_steps(r.id);
  if (!steps.empty()) print_mixer(*s.read_mixer(r.id, steps.back()));
  for (const auto& c : s.checkpoints(r.id))
    std::printf("checkpoint step %lld: %s (%s, sha256 %s)\n", static_cast<long long>(c.step), c.path.c_str(),
                format_bytes(c.bytes).c_str(), c.sha256.substr(0, 16).c_str());
}

}  // namespace

runtime::RunFilter RunFilterOpts::filter() const {
  runtime::RunFilter f;
  if (!kind.empty()) f.kind = store::run_kind_from_string(kind);
  if (!status.empty()) f.status = store::run_status_from_string(status);
  f.group = group;
  f.tags = tags;
  return f;
}

void add_filter_options(CLI::App* cmd, RunFilterOpts& f) {
  cmd->add_option("--kind", f.kind, "Only runs of this kind: train (training runs) or profile (efficiency profiles)")
      ->check(CLI::IsMember({"train", "profile"}));
  cmd->add_option("--status", f.status, "Only runs in this state")
      ->check(CLI::IsMember({"queued", "running", "finished", "failed", "cancelled", "diverged", "interrupted"}));
  cmd->add_option("--group", f.group, "Only this group's runs (listed each on its own line)");
  cmd->add_option("--tag", f.tags, "Only runs with this tag (repeatable: runs with every one of them)")
      ->check(CLI::Validator([](std::string& t) { return t.empty() ? std::string("a tag cannot be empty") : std::string(); },
                             "TAG", "non-empty"));
}

namespace {

void add_list_command(CLI::App* runs) {
  auto lo = std::make_shared<ListOpts>();
  auto* list = runs->add_subcommand("list", "Every run in the store, one line per group of seeded replicas (mean ± "
                                            "std (n)): kind, status, size, final losses, accuracy, tags, notes");
  add_locator_options(list, lo->where, false);
  add_filter_options(list, lo->which);
  list->add_flag("--replicas", lo->replicas, "List each group's runs under the group's line");
  list->callback([lo] { list_runs(*lo); });
}

}  // namespace

void add_runs_commands(CLI::App& app, GlobalOptions&) {
  auto* runs = app.add_subcommand(
      "runs", "List, show, tag, annotate, rename, delete, export or recover the runs of a store");
  runs->require_subcommand(1);
  add_list_command(runs);
  add_recover_command(runs);
  add_manage_commands(runs);

  auto show_where = std::make_shared<RunLocator>();
  auto show_json = std::make_shared<bool>(false);
  auto* show = runs->add_subcommand("show", "One run: config summary, metrics, evaluations, mixer, checkpoints");
  add_locator_options(show, *show_where, false);
  show->add_option("id", show_where->run, "Run id");
  show->add_flag("--json", *show_json, "The run's record as JSON (with its config)");
  show->callback([show_where, show_json] {
    if (show_where->run <= 0) throw CLI::ValidationError("runs show", "give the run id");
    show_run(*show_where, *show_json);
  });

  struct ExportOpts {
    RunLocator where;
    std::string format = "csv", out, weights;
    std::vector<std::string> keys;
  };
  auto e = std::make_shared<ExportOpts>();
  auto* ex = app.add_subcommand("export", "Export a run: metrics as CSV or the full record as JSON (every point), "
                                          "weights as safetensors");
  add_locator_options(ex, e->where, true);
  ex->add_option("--format", e->format, "csv | json")->check(CLI::IsMember({"csv", "json"}));
  ex->add_option("--out", e->out, "Output file (default: stdout)");
  ex->add_option("--key", e->keys, "Only these metric keys (repeatable)");
  ex->add_option("--weights", e->weights, "Also write the last checkpoint's weights to this .safetensors file");
  ex->callback([e] {
    auto s = store::Store::open(e->where.store_path());
    const store::RunInfo r = require_run(s, e->where.run);
    std::string text;
    if (e->format == "csv") {
      std::ostringstream os;
      runtime::export_metrics_csv(s, r.id, e->keys, os);
      text = os.str();
    } else {
      text = runtime::export_run_json(s, r.id, e->keys).dump(1) + "\n";
    }
    if (e->out.empty()) std::cout << text;
    else runtime::write_file_atomically(e->out, text);
    if (!e->weights.empty()) {
      std::string ckpt;
      for (const auto& c : s.checkpoints(r.id)) ckpt = c.path;
      if (ckpt.empty()) throw core::Error(s.path(), "run " + std::to_string(r.id) + " has no checkpoint to export weights from");
      runtime::export_checkpoint_weights(ckpt, e->weights);
      std::fprintf(stderr, "weights of %s written to %s\n", ckpt.c_str(), e->weights.c_str());
    }
  });
}

}  // namespace pha::cli
