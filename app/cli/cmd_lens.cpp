// `pha lens weights|knockout|tokens|spectrum|attention`: the hybrid lens on a run's checkpoint
// (runtime/lens.h; docs/lens.md). Tables on stdout, --csv FILE for the full data, --json for
// scripts, --record to store weights and knock-outs for the report's claims.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cmd_runs.h"
#include "commands.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "device/system_info.h"
#include "runtime/lens.h"
#include "store/lens_store.h"

namespace pha::cli {

using nlohmann::json;

namespace {

constexpr const char* kBranch[3] = {"gss", "attn", "ffn"};

struct LensOpts {
  RunLocator where;
  std::string run, compare, text_file, csv;
  runtime::LensOptions engine;
  runtime::LensSource source;
  int layer = 0, head = 0, window = 0, bootstrap = 1000;
  int64_t horizon = 0;
  bool record = false, json_out = false;
};

std::string read_text(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(path, "cannot be read (--text)");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// "3", "pha-tiny", "3,4,5", "group:pha/d_model=64" or "all" (every finished training run) -> run ids.
std::vector<int64_t> resolve_runs(store::Store& s, const std::string& spec, const std::string& argument) {
  std::vector<int64_t> out;
  if (spec == "all") {
    store::RunListQuery q;
    q.kind = store::RunKind::Train;
    q.newest_first = false;
    for (const auto& e : s.list_runs(q))
      if (e.run.status == store::RunStatus::Finished) out.push_back(e.run.id);
    if (out.empty()) throw core::Error(argument, "the store has no finished training run");
    return out;
  }
  if (spec.rfind("group:", 0) == 0) {
    store::RunListQuery q;
    q.group = spec.substr(6);
    for (const auto& e : s.list_runs(q))
      if (e.run.status == store::RunStatus::Finished) out.push_back(e.run.id);
    if (out.empty()) throw core::Error(argument, "no finished run in group \"" + spec.substr(6) + "\"");
    std::sort(out.begin(), out.end());
    return out;
  }
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(resolve_run(s, item, argument));
  if (out.empty()) throw core::Error(argument, "names no run");
  return out;
}

void write_csv(const std::string& path, const std::string& body) {
  if (path.empty()) return;
  core::write_file_atomic(path, {body});
  std::printf("wrote %s\n", path.c_str());
}

std::string fmt(double v, const char* f = "%8.4f") {
  if (std::isnan(v)) return "       -";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void header(const runtime::Lens& lens, const std::string& source) {
  const auto& i = lens.info();
  std::printf("run %lld \"%s\", %s\n", static_cast<long long>(i.run_id), i.run_name.c_str(),
              i.checkpoint.empty() ? "as initialised (--init)"
                                   : ("checkpoint at step " + std::to_string(i.step)).c_str());
  if (!source.empty()) std::printf("source: %s\n", source.c_str());
}

void record(const LensOpts& o, const std::string& store_path, const runtime::Lens& lens,
            const std::vector<store::LensRow>& rows) {
  if (!o.record) return;
  auto s = store::Store::open(store_path);
  store::record_lens(s, lens.info().run_id, rows);
  std::printf("recorded %zu lens rows for run %lld in %s\n", rows.size(), static_cast<long long>(lens.info().run_id),
              store_path.c_str());
}

void run_weights(const LensOpts& o, const std::string& store_path, int64_t run_id) {
  runtime::Lens lens(store_path, run_id, o.engine);
  const auto w = lens.windows(o.source);
  const auto e = lens.effective_weights(w);
  if (o.json_out) {
    std::cout << json{{"raw", e.raw.values}, {"gain_rms", e.gain_rms.values}, {"effective", e.effective.values},
                      {"share", e.share.values}, {"layers", e.layers}, {"tokens", e.tokens}, {"seconds", e.seconds}}
                     .dump(2)
              << "\n";
  } else {
    header(lens, e.source);
    std::printf("%5s %-5s %8s %8s %9s %8s\n", "layer", "branch", "raw w", "gain RMS", "effective", "share");
    std::ostringstream csv;
    csv << "layer,branch,raw_weight,gain_rms,effective_weight,effective_share\n";
    for (int l = 0; l < e.layers; ++l)
      for (int b = 0; b < 3; ++b) {
        if (std::isnan(e.gain_rms.at(l, b))) continue;
        std::printf("%5d %-5s %s %s %s  %s\n", l, kBranch[b], fmt(e.raw.at(l, b)).c_str(), fmt(e.gain_rms.at(l, b)).c_str(),
                    fmt(e.effective.at(l, b), "%9.4f").c_str(), fmt(e.share.at(l, b)).c_str());
        csv << l << "," << kBranch[b] << "," << e.raw.at(l, b) << "," << e.gain_rms.at(l, b) << "," << e.effective.at(l, b)
            << "," << e.share.at(l, b) << "\n";
      }
    std::printf("%lld positions, %.2f s; layers without a mixer show '-' for the weights\n",
                static_cast<long long>(e.tokens), e.seconds);
    write_csv(o.csv, csv.str());
  }
  record(o, store_path, lens, lens.rows(e));
}

void run_knockout(const LensOpts& o, const std::string& store_path, int64_t run_id) {
  runtime::Lens lens(store_path, run_id, o.engine);
  const auto w = lens.windows(o.source);
  const auto k = lens.knockouts(w);
  std::ostringstream csv;
  csv << "layer,branch,class,delta_loss\n";
  auto each = [&](auto&& fn) {
    for (int row = 0; row <= k.layers; ++row)
      for (int b = 0; b < 3; ++b) {
        if (std::isnan(k.delta.at(row, b))) continue;
        fn(row, b);
      }
  };
  each([&](int row, int b) {
    const std::string layer = row == k.layers ? "all" : std::to_string(row);
    csv << layer << "," << kBranch[b] << ",," << k.delta.at(row, b) << "\n";
    for (size_t c = 0; c < k.class_names.size(); ++c)
      csv << layer << "," << kBranch[b] << "," << k.class_names[c] << "," << k.delta_by_class[c].at(row, b) << "\n";
  });
  if (o.json_out) {
    json classes = json::array();
    for (size_t c = 0; c < k.class_names.size(); ++c)
      classes.push_back({{"class", k.class_names[c]}, {"tokens", k.class_tokens[c]}, {"base_loss", k.base_by_class[c]},
                         {"delta", k.delta_by_class[c].values}});
    std::cout << json{{"base_loss", k.base_loss}, {"delta", k.delta.values}, {"layers", k.layers}, {"classes", classes},
                      {"rule", runtime::KnockoutResult::kRule}, {"passes", k.passes}, {"seconds", k.seconds}}
                     .dump(2)
              << "\n";
  } else {
    header(lens, k.source);
    std::printf("knock-out: %s; base loss %.4f nats/token over %lld positions\n", runtime::KnockoutResult::kRule,
                k.base_loss, static_cast<long long>(k.tokens));
    std::printf("%5s %-5s %9s", "layer", "branch", "d loss");
    for (size_t c = 0; c < k.class_names.size(); ++c) std::printf(" %10s", k.class_names[c].substr(0, 10).c_str());
    std::printf("\n%5s %-5s %9s", "", "", "(all)");
    for (size_t c = 0; c < k.class_names.size(); ++c)
      std::printf(" %10s", ("n=" + std::to_string(k.class_tokens[c])).c_str());
    std::printf("\n");
    each([&](int row, int b) {
      std::printf("%5s %-5s %9.4f", row == k.layers ? "all" : std::to_string(row).c_str(), kBranch[b], k.delta.at(row, b));
      for (size_t c = 0; c < k.class_names.size(); ++c) std::printf(" %10.4f", k.delta_by_class[c].at(row, b));
      std::printf("\n");
    });
    std::printf("%d forward passes, %.2f s\n", k.passes, k.seconds);
    write_csv(o.csv, csv.str());
  }
  record(o, store_path, lens, lens.rows(k));
}

void print_bins(const char* what, const std::vector<runtime::TokenComparison::Bin>& bins) {
  std::printf("%-12s %8s %9s %9s %9s  %s\n", what, "tokens", "loss a", "loss b", "a - b", "95% interval");
  for (const auto& b : bins)
    std::printf("%-12s %8lld %9.4f %9.4f %9.4f  [%s, %s]\n", b.label.c_str(), static_cast<long long>(b.tokens), b.mean_a,
                b.mean_b, b.mean_diff, fmt(b.lo, "%.4f").c_str(), fmt(b.hi, "%.4f").c_str());
}

void run_tokens(const LensOpts& o, const std::string& store_path, const std::vector<int64_t>& a,
                const std::vector<int64_t>& b) {
  if (b.empty()) {
    if (a.size() > 1) throw core::Error("--run", "give one run without --compare (a group is for comparisons)");
    runtime::Lens lens(store_path, a.front(), o.engine);
    const auto t = lens.token_losses(lens.windows(o.source));
    if (o.json_out) {
      std::cout << json{{"mean_nll", t.mean_nll}, {"counted", t.counted}, {"nll", t.nll}, {"seconds", t.seconds}}.dump()
                << "\n";
      return;
    }
    header(lens, t.windows.source);
    std::printf("mean loss %.5f nats/token over %lld positions (%.2f s)\n", t.mean_nll, static_cast<long long>(t.counted),
                t.seconds);
    write_csv(o.csv, runtime::token_losses_csv(t));
    return;
  }
  const auto c = runtime::compare_tokens(store_path, a, b, o.source, o.engine, o.bootstrap);
  if (o.json_out) {
    auto bins = [](const std::vector<runtime::TokenComparison::Bin>& v) {
      json out = json::array();
      for (const auto& x : v)
        out.push_back({{"label", x.label}, {"tokens", x.tokens}, {"mean_a", x.mean_a}, {"mean_b", x.mean_b},
                       {"diff", x.mean_diff}, {"lo", x.lo}, {"hi", x.hi}});
      return out;
    };
    std::cout << json{{"a", c.label_a}, {"b", c.label_b}, {"overall", bins({c.overall})[0]},
                      {"by_position", bins(c.by_position)}, {"by_class", bins(c.by_class)}, {"seconds", c.seconds}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("a: %s\nb: %s\nsource: %s\n", c.label_a.c_str(), c.label_b.c_str(), c.windows.source.c_str());
  std::printf("loss in nats/token; a - b < 0: a predicts better; intervals: %d bootstrap draws over windows\n",
              c.bootstrap);
  print_bins("", {c.overall});
  print_bins("position", c.by_position);
  print_bins("class", c.by_class);
  std::printf("%.2f s\n", c.seconds);
  write_csv(o.csv, runtime::token_comparison_csv(c));
}

void run_spectrum(const LensOpts& o, const std::string& store_path, int64_t run_id) {
  runtime::Lens lens(store_path, run_id, o.engine);
  const auto s = lens.spectrum(o.horizon);
  header(lens, "");
  if (!s.none_reason.empty()) {
    std::printf("%s\n", s.none_reason.c_str());
    return;
  }
  std::printf("|K(t)| over %lld lags (training context %d); half-life: lags from the peak of |K| (lags >= 1) until it "
              "stays at or below half the peak\n",
              static_cast<long long>(s.horizon), s.train_len);
  std::printf("%5s %8s %10s %10s %10s %14s\n", "layer", "channels", "median hl", "min hl", "max hl", "beyond context");
  std::ostringstream csv;
  csv << "layer,channel,half_life\n";
  for (const auto& l : s.layers) {
    std::vector<float> hl = l.half_life;
    std::sort(hl.begin(), hl.end());
    int beyond = 0;
    for (float h : hl) beyond += h > static_cast<float>(s.train_len);
    std::printf("%5d %8d %10.1f %10.1f %10.1f %8d of %d\n", l.layer, l.channels, hl[hl.size() / 2], hl.front(), hl.back(),
                beyond, l.channels);
    for (int h = 0; h < l.channels; ++h) csv << l.layer << "," << h << "," << l.half_life[static_cast<size_t>(h)] << "\n";
  }
  write_csv(o.csv, csv.str());
}

void run_attention(const LensOpts& o, const std::string& store_path, int64_t run_id) {
  runtime::Lens lens(store_path, run_id, o.engine);
  const auto w = lens.windows(o.source);
  const auto m = lens.attention(w, o.window, o.layer, o.head);
  header(lens, w.source);
  // Per query: the key it attends to most.
  std::printf("layer %d, head %d of %d, window %d (T %d): each query's strongest key\n", m.layer, m.head, m.heads, o.window,
              m.T);
  const int show = std::min(m.T, 32);
  for (int q = 0; q < show; ++q) {
    int best = 0;
    for (int k = 0; k <= q; ++k)
      if (m.weights[static_cast<size_t>(q) * m.T + k] > m.weights[static_cast<size_t>(q) * m.T + best]) best = k;
    std::printf("%4d %-8s -> %4d %-8s %.3f\n", q, m.tokens[static_cast<size_t>(q)].substr(0, 8).c_str(), best,
                m.tokens[static_cast<size_t>(best)].substr(0, 8).c_str(), m.weights[static_cast<size_t>(q) * m.T + best]);
  }
  if (m.T > show) std::printf("(first %d of %d queries; --csv for the whole map)\n", show, m.T);
  std::ostringstream csv;
  csv << "query,key,query_token,key_token,weight\n";
  for (int q = 0; q < m.T; ++q)
    for (int k = 0; k <= q; ++k)
      csv << q << "," << k << ",\"" << m.tokens[static_cast<size_t>(q)] << "\",\"" << m.tokens[static_cast<size_t>(k)]
          << "\"," << m.weights[static_cast<size_t>(q) * m.T + k] << "\n";
  write_csv(o.csv, csv.str());
}

}  // namespace

void add_lens_command(CLI::App& app, GlobalOptions& global) {
  auto* lens = app.add_subcommand("lens",
                                  "The hybrid lens on a run's checkpoint: effective branch weights, knock-outs, "
                                  "per-token losses and differences, the GSS kernel spectrum, attention maps");
  lens->require_subcommand(1);
  auto add = [&](const char* name, const char* help, auto fn) {
    auto o = std::make_shared<LensOpts>();
    auto* cmd = lens->add_subcommand(name, help);
    cmd->add_option("--project", o->where.project, "Project folder (its runs.sqlite)");
    cmd->add_option("--store", o->where.store, "Run store file (instead of --project)");
    cmd->add_option("--run", o->run, "Run id or unique name; weights, knockout and tokens: several (3,4,5), group:NAME or all")->required();
    cmd->add_option("--checkpoint", o->engine.checkpoint, "Checkpoint file (default: the run's last)");
    cmd->add_option("--step", o->engine.step, "The run's checkpoint at this training step")->check(CLI::NonNegativeNumber);
    cmd->add_option("--device", o->engine.device, "cpu | cuda | auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
    cmd->add_option("--split,--set", o->source.split, "Text: valid | test; tasks: a held-out set (default: the first)");
    cmd->add_option("--tokens", o->source.tokens, "Text: tokens predicted (default 4096; 0: all)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--offset", o->source.offset, "Text: first token of the split; tasks: first example")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--examples", o->source.examples, "Tasks: held-out examples (default 64)")->check(CLI::PositiveNumber);
    cmd->add_option("--text", o->text_file, "Text runs: read this text file (- for stdin) instead of the split");
    cmd->add_option("--ngram", o->source.ngram, "Copyable rule: n-gram length (default 4 for bytes, 2 for BPE)")
        ->check(CLI::Range(1, 64));
    cmd->add_option("--csv", o->csv, "Write the full result as CSV to this file");
    cmd->add_flag("--json", o->json_out, "Print the result as JSON");
    fn(cmd, o);
    cmd->callback([o, &global, fn_name = std::string(name)] {
      device::configure_threads(global.threads);
      const std::string store_path = o->where.store_path();
      std::vector<int64_t> a, b;
      {
        auto s = store::Store::open(store_path);
        a = resolve_runs(s, o->run, "--run");
        if (!o->compare.empty()) b = resolve_runs(s, o->compare, "--compare");
      }
      if (!o->text_file.empty()) o->source.text = read_text(o->text_file);
      const bool many = fn_name == "weights" || fn_name == "knockout";
      if (!many && fn_name != "tokens" && a.size() > 1) throw core::Error("--run", "give one run");
      if (many && a.size() > 1 && !o->csv.empty()) throw core::Error("--csv", "is for one run; give one --run");
      if (fn_name == "weights") {
        for (int64_t id : a) run_weights(*o, store_path, id);
      } else if (fn_name == "knockout") {
        for (int64_t id : a) run_knockout(*o, store_path, id);
      } else if (fn_name == "tokens") run_tokens(*o, store_path, a, b);
      else if (fn_name == "spectrum") run_spectrum(*o, store_path, a.front());
      else run_attention(*o, store_path, a.front());
    });
  };
  add("weights", "Effective branch weights: mixer weight x RMS of the branch's normed output, per layer and branch",
      [](CLI::App* c, const std::shared_ptr<LensOpts>& o) {
        c->add_flag("--record", o->record, "Store the weights in the run store (the report's sandwich claim reads them)");
      });
  add("knockout", "Branch knock-outs: validation loss change with each layer's branch removed, per token class",
      [](CLI::App* c, const std::shared_ptr<LensOpts>& o) {
        c->add_flag("--record", o->record, "Store the knock-outs (the report's knockout / specialisation claims)");
      });
  add("tokens", "Per-token loss of a run, or the per-token difference of two runs / groups (--compare)",
      [](CLI::App* c, const std::shared_ptr<LensOpts>& o) {
        c->add_option("--compare", o->compare, "The run(s) to compare against: ids, names or group:NAME");
        c->add_option("--bootstrap", o->bootstrap, "Bootstrap draws for the intervals (default 1000)")
            ->check(CLI::Range(0, 100000));
      });
  add("spectrum", "GSS kernel spectrum: |K(t)| per channel and each channel's half-life, per layer",
      [](CLI::App* c, const std::shared_ptr<LensOpts>& o) {
        c->add_flag("--init", o->engine.at_init, "The model as the run's seed initialised it (no checkpoint)");
        c->add_option("--horizon", o->horizon, "Lags computed (default 4 x the training context)")
            ->check(CLI::PositiveNumber);
      });
  add("attention", "One attention head's weights on a window, with the tokens",
      [](CLI::App* c, const std::shared_ptr<LensOpts>& o) {
        c->add_option("--layer", o->layer, "Layer (0-based)")->required()->check(CLI::NonNegativeNumber);
        c->add_option("--head", o->head, "Query head (0-based, default 0)")->check(CLI::NonNegativeNumber);
        c->add_option("--window", o->window, "Window of the source (default 0)")->check(CLI::NonNegativeNumber);
      });
}

}  // namespace pha::cli
