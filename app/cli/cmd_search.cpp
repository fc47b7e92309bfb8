// `pha search PROJECT`: the project's architecture search (its "search" section,
// docs/search.md): run or continue it, print the commands of its next rung runs (--plan), its
// state (--status), its report (--report), or add a trial to the project (--promote).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include "cmd_progress.h"
#include "commands.h"
#include "core/config_reader.h"
#include "core/error.h"
#include "search_runner/search_job.h"
#include "queue/work_queue.h"

namespace pha::cli {

namespace {

struct SearchCliOptions {
  std::string project;
  int jobs = 1;
  int nproc = 1;
  int repeat = 0;
  bool plan = false, status = false, report = false, resume = false, quiet = false;
  std::string format = "md", out, promote, name, only;
  std::vector<std::string> variants;
};

// The live table: one line per rung run started (with an ETA from the runs done so far) and one
// per trial whose decision changed; the running run's progress below it unless --quiet.
class SearchPrinter : public search_runner::SearchObserver {
 public:
  explicit SearchPrinter(bool quiet) : quiet_(quiet), progress_("", true) {}
  void on_step(const runtime::StepMetrics& m) override { if (!quiet_) progress_.on_step(m); }
  void on_log(const runtime::LogEvent& e) override {
    if (e.level != runtime::LogEvent::Level::Info) progress_.on_log(e);
  }
  void on_search_run(const search_runner::SearchJobId& id, const std::string& label, int index, int planned) override {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string eta;
    if (trained_ > 0) eta = ", ETA " + core::format_duration(elapsed / trained_ * (planned - index + 1)) + " (at most)";
    ++trained_;  // rung runs started by this call (the ones found finished took no time)
    std::printf("[%d/%d%s] %s t%d rung %d seed %llu: %s\n", index, planned, eta.c_str(), id.search.c_str(), id.trial,
                id.rung, static_cast<unsigned long long>(id.seed), label.c_str());
    std::fflush(stdout);
  }
  void on_search_decided(const search_runner::SearchSummary& s) override {
    for (const auto& t : s.trials) {
      const std::string key = t.search + ":" + std::to_string(t.bracket) + ":" + std::to_string(t.trial);
      const std::string line = t.state + "@" + std::to_string(t.rung);
      if (seen_[key] == line) continue;
      seen_[key] = line;
      std::printf("  %s b%d:t%d rung %d (%s %s): %-8s %s\n", t.search.c_str(), t.bracket, t.trial, t.rung,
                  core::format_number(t.resource).c_str(), s.resource.c_str(), t.state.c_str(),
                  t.why.c_str());
    }
    std::fflush(stdout);
  }

 private:
  bool quiet_;
  int trained_ = 0;
  ProgressPrinter progress_;
  std::map<std::string, std::string> seen_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void write_out(const std::string& text, const std::string& out) {
  if (out.empty()) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream f(out);
  if (!f || !(f << text)) throw core::Error(out, "cannot be written");
  std::printf("wrote %s\n", out.c_str());
}

int run(const SearchCliOptions& o) {
  if (!o.promote.empty()) {
    const std::string n = search_runner::promote_search_trial(o.project, o.promote, o.name);
    std::printf("added variant \"%s\" (trial %s) to %s/project.json\n", n.c_str(), o.promote.c_str(), o.project.c_str());
    return kOk;
  }
  if (o.repeat > 0) {  // N searches against the grid (docs/search.md "Is the pick right?")
    runtime::RunControl control;
    CancelOnSignal signals(control);
    SearchPrinter printer(true);
    search_runner::SearchRepeatOptions ro;
    ro.repeats = o.repeat;
    ro.searches = o.variants;
    const search_runner::SearchRepeatResult r = search_runner::run_search_repeats(o.project, ro, printer, control);
    if (r.cancelled) {
      std::printf("repeats cancelled; rerun the same command to continue (finished rung runs are reused)\n");
      return kCancelled;
    }
    write_out(search_runner::search_repeats_report(r, o.format), o.out);
    return kOk;
  }
  if (o.status || o.report) {
    const search_runner::SearchSummary s = search_runner::search_status(o.project);
    write_out(search_runner::search_report(s, o.report ? o.format : "md"), o.out);
    return kOk;
  }
  runtime::RunControl control;
  CancelOnSignal signals(control, !o.only.empty());  // a `--only` worker of `pha search --jobs`
  SearchPrinter printer(o.quiet || o.jobs > 1);
  if (o.plan) {  // the commands of the next runnable rung runs; nothing runs
    search_runner::SearchOptions so;
    so.plan = true;
    so.jobs = o.jobs;
    so.nproc = o.nproc;
    so.searches = o.variants;
    const search_runner::SearchResult r = search_runner::run_search(o.project, so, printer, control);
    for (const auto& line : r.plan) std::printf("%s\n", line.c_str());
    if (r.plan.empty()) std::fprintf(stderr, "nothing to run: the search is complete (pha search --report)\n");
    return kOk;
  }
  // The search (or one rung run of it) as an item of the engine's queue, as the window runs it.
  project::QueueItem item;
  item.kind = o.only.empty() ? project::QueueItemKind::Search : project::QueueItemKind::SearchTrial;
  item.project = o.project;
  item.run = o.only;
  item.search_jobs = o.jobs;
  queue::QueueSettings settings;
  settings.searches = o.variants;
  settings.processes = o.nproc;
  const queue::QueueItemResult done = queue::run_queue_item(item, settings, printer, control);
  if (done.error) std::rethrow_exception(done.error);  // bad input: the command's error
  const search_runner::SearchResult& r = *done.search;
  if (!o.only.empty()) return r.cancelled || control.cancel_requested() ? kCancelled : kOk;
  if (r.cancelled) {
    std::printf("search cancelled; rerun `pha search %s` to continue\n", o.project.c_str());
    return kCancelled;
  }
  std::printf("\n%s", search_runner::search_report(r.summary, "md").c_str());
  std::printf("\n%lld rung run(s) trained now, %lld found finished in the store; %s steps over the whole search\n",
              static_cast<long long>(r.summary.runs_trained), static_cast<long long>(r.summary.runs_reused),
              core::format_number(r.summary.steps_total).c_str());
  return kOk;
}

}  // namespace

void add_search_command(CLI::App& app, GlobalOptions& global) {
  (void)global;
  auto o = std::make_shared<SearchCliOptions>();
  auto* cmd = app.add_subcommand("search", "Run or continue the project's architecture search (docs/search.md)");
  cmd->add_option("project", o->project, "Project folder (or its project.json) with a \"search\" section")->required();
  cmd->add_option("--jobs", o->jobs, "Rung runs at once, each in its own worker process")->check(CLI::Range(1, 64));
  cmd->add_option("--nproc", o->nproc, "Data-parallel processes per rung run (gloo on this machine; threads divided between them)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--plan", o->plan, "Print the commands of the runs the search can start now, run nothing");
  cmd->add_flag("--resume", o->resume, "Continue a stopped search (what a plain rerun does)");
  cmd->add_flag("--status", o->status, "Print the search's state from the store, train nothing");
  cmd->add_flag("--report", o->report, "The leaderboard and every decision's reason (--format md|json)");
  cmd->add_option("--format", o->format, "Report format")->check(CLI::IsMember({"md", "json"}));
  cmd->add_option("--out", o->out, "Write the report or status to this file");
  cmd->add_option("--promote", o->promote, "Add trial <variant>:t<N> to project.json as a variant");
  cmd->add_option("--name", o->name, "The promoted variant's name (default <variant>-t<N>)");
  cmd->add_option("--only", o->only, "Train this one rung run (<variant>:b<N>:t<N>:r<N>:s<seed>, from --plan)");
  cmd->add_option("--variant", o->variants, "Search only these base variants");
  cmd->add_option("--repeat", o->repeat,
                  "Run N independent searches (own seeds) against the exhaustive grid at the full budget and report "
                  "how often the pick is in the grid's top 2, its regret and compute (--format md|json, --out)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--quiet", o->quiet, "No per-step progress");
  cmd->callback([o] {
    const int code = run(*o);
    if (code != kOk) throw ExitWith(code);
  });
}

}  // namespace pha::cli
