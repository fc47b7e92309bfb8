// The search runner (search_job.h): the walk over brackets and rungs and the decisions from the
// rung runs' results (every decision itself is search/promotion.cpp's); the trials' setup and
// the rung runs are search_setup.cpp's.
#include "search_runner/search_job.h"
#include "search_runner/internal/search_internal.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/metric_table.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "runtime/job.h"
#include "runtime/profiler.h"
#include "project/project_files.h"
#include "project/project_queue.h"
#include "search/param_constraint.h"
#include "search/promotion.h"
#include "search/schedule.h"
#include "search/search_space.h"
#include "search/search_spec.h"
#include "store/search_store.h"
#include "store/store.h"

extern char** environ;

namespace pha::search_runner {

using json = nlohmann::json;
namespace fs = std::filesystem;

using namespace detail;

namespace {

double row_resource(const BracketSetup& bs, int rung) { return bs.bracket.rungs[static_cast<size_t>(rung)].resource; }

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// ---- the walk --------------------------------------------------------------------------------

enum class Mode { Status, Plan, Train };

struct Walk {
  const Setup& s;
  Mode mode;
  const SearchOptions& options;
  SearchObserver* obs = nullptr;
  runtime::RunControl* ctl = nullptr;
  SearchResult result;
  int started = 0;  // rung runs started or found finished so far: the next one's index - 1

  // Planned rung runs so far (for "run 3 of 27"): every trial's first rung plus what promotions
  // add; an estimate until the last rung is decided.
  int planned() const {
    int n = 0;
    for (const auto& one : s.searches)
      for (const auto& b : one.brackets)
        for (const auto& r : b.bracket.rungs)
          n += r.trials * static_cast<int>(rung_seeds(s, static_cast<size_t>(r.trials)).size());
    return n;
  }

  void note_trial(const OneSearch& one, const BracketSetup& bs, const TrialSetup& ts, int rung,
                  const std::string& state, const search::Ranked* ranked, const std::string& why,
                  std::vector<std::int64_t> runs) {
    auto& trials = result.summary.trials;
    auto it = std::find_if(trials.begin(), trials.end(), [&](const SearchTrialState& t) {
      return t.search == one.name && t.bracket == bs.bracket.index && t.trial == ts.trial.index;
    });
    if (it == trials.end()) {
      trials.push_back({});
      it = trials.end() - 1;
    }
    it->search = one.name;
    it->bracket = bs.bracket.index;
    it->trial = ts.trial.index;
    it->label = ts.trial.label;
    it->values = ts.trial.values;
    it->params = ts.params;
    it->rung = rung;
    it->resource = bs.bracket.rungs[static_cast<size_t>(rung)].resource;
    it->state = state;
    it->why = why;
    it->run_ids = std::move(runs);
    if (ranked) {
      it->mean = ranked->mean;
      it->stdev = ranked->stdev;
    }
    SearchRungPoint point{rung, it->resource, state, it->mean, it->stdev, it->run_ids};
    if (!ranked) point.mean.clear(), point.stdev.clear();
    while (!it->history.empty() && it->history.back().rung >= rung) it->history.pop_back();
    it->history.push_back(std::move(point));
  }

  // Returns false when the bracket cannot go on (runs still to train in Status/Plan mode, or
  // cancelled).
  bool walk_bracket(const OneSearch& one, const BracketSetup& bs) {
    std::vector<int> alive;
    for (const auto& ts : bs.trials) {
      if (!ts.infeasible.empty())
        note_trial(one, bs, ts, 0, "failed", nullptr, "failed: " + ts.infeasible, {});
      else
        alive.push_back(ts.trial.index);
    }
    const int n_rungs = static_cast<int>(bs.bracket.rungs.size());
    for (int rung = 0; rung < n_rungs && !alive.empty(); ++rung) {
      std::vector<RungRun> runs;
      for (int t : alive)
        for (std::uint64_t seed : rung_seeds(s, alive.size()))
          runs.push_back(rung_run(s, one, bs, bs.trials[static_cast<size_t>(t)], rung, seed));
      auto st = store::Store::open(s.project.store_path());
      std::vector<RunOutcome> outs;
      for (const auto& rr : runs) outs.push_back(outcome_of(st, s, rr));
      std::vector<size_t> todo;
      for (size_t i = 0; i < runs.size(); ++i)
        if (!outs[i].done) todo.push_back(i);
      const auto found = static_cast<std::int64_t>(runs.size() - todo.size());
      if (!todo.empty())  // a decided rung whose runs were deleted since: its recorded decision stands
        if (auto recorded = recorded_rung(st, s, one, bs, rung, alive, runs, outs)) {
          if (mode == Mode::Train) result.summary.runs_reused += found;
          started += static_cast<int>(runs.size());  // "rung run i of n" counts them as done
          alive = take_recorded(one, bs, rung, *recorded);
          if (obs) obs->on_search_decided(result.summary);
          continue;
        }
      if (mode == Mode::Train) {  // "rung run i of n" counts these as done
        result.summary.runs_reused += found;
        started += static_cast<int>(found);
      }
      if (!todo.empty()) {
        for (int t : alive) note_waiting(one, bs, rung, t, runs, outs);
        if (mode == Mode::Status) return false;
        if (mode == Mode::Plan) {
          for (size_t i : todo) {
            std::string line;
            for (const auto& a : worker_argv(s, options, runs[i].id)) line += (line.empty() ? "" : " ") + shell_quote(a);
            result.plan.push_back(line);
          }
          return false;
        }
        train(st, one, bs, rung, runs, outs, todo);
        if (ctl->cancel_requested()) {
          result.cancelled = true;
          return false;
        }
      }
      alive = decide(st, one, bs, rung, runs, alive);
    }
    return true;
  }

  // A rung decided from its recorded rows (recorded_rung); returns the trials that go on.
  std::vector<int> take_recorded(const OneSearch& one, const BracketSetup& bs, int rung,
                                 const std::vector<RecordedTrial>& recorded) {
    std::vector<int> promoted;
    for (const RecordedTrial& r : recorded) {
      const search::Ranked m = measured(r.trial, r.values);
      note_trial(one, bs, bs.trials[static_cast<size_t>(r.trial)], rung, r.decision,
                 r.decision == "failed" ? nullptr : &m, r.why, r.run_ids);
      if (r.decision == "promoted") promoted.push_back(r.trial);
    }
    return promoted;
  }

  // Trial t at an undecided rung: "trained" with its measured value once every run of it has
  // ended, else what its runs are ("running", "cancelled", "interrupted", "pending").
  void note_waiting(const OneSearch& one, const BracketSetup& bs, int rung, int t, const std::vector<RungRun>& runs,
                    const std::vector<RunOutcome>& outs) {
    const TrialSetup& ts = bs.trials[static_cast<size_t>(t)];
    std::vector<std::vector<double>> values(s.spec.objectives.size());
    std::vector<std::int64_t> ids;
    std::string state = "trained", why, failed;
    std::int64_t stopped_run = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].id.trial != t) continue;
      const RunOutcome& o = outs[i];
      if (o.run_id > 0) ids.push_back(o.run_id);
      if (o.done && o.failed) failed = o.reason;
      if (o.done && !o.failed)
        for (size_t k = 0; k < o.values.size(); ++k) values[k].push_back(o.values[k]);
      if (o.done) continue;
      // The first not-done run says the state: running before cancelled before interrupted.
      const std::string here = o.stored == "running" || o.stored == "cancelled" || o.stored == "interrupted"
                                   ? o.stored : "pending";
      const auto rank = [](const std::string& x) {
        return x == "running" ? 0 : x == "cancelled" ? 1 : x == "interrupted" ? 2 : x == "pending" ? 3 : 4;
      };
      if (rank(here) < rank(state)) state = here, stopped_run = o.run_id;
    }
    const std::string r = "rung " + std::to_string(rung);
    if (state == "trained" && !failed.empty()) {
      note_trial(one, bs, ts, rung, "failed", nullptr, "failed: " + failed + " (" + r + " not decided yet)", ids);
      return;
    }
    if (state == "trained") {
      const search::Ranked m = measured(t, values);
      note_trial(one, bs, ts, rung, "trained", &m,
                 "trained; awaiting the rung's decision (when every run of " + r + " has ended)", ids);
      return;
    }
    const std::string run = "run " + std::to_string(stopped_run);
    if (state == "running") why = r + "'s " + run + " is training";
    if (state == "cancelled") why = r + "'s " + run + " was cancelled; Start (pha search) resumes it from its checkpoint";
    if (state == "interrupted")
      why = r + "'s " + run + " was interrupted (its process ended); Start (pha search) resumes it from its checkpoint";
    note_trial(one, bs, ts, rung, state, nullptr, why, ids);
  }

  // Trains the rung runs runs[todo]; a trial whose runs have all ended reads "trained" with its
  // value at once (observers get the summary), before the rung is decided.
  void train(store::Store& st, const OneSearch& one, const BracketSetup& bs, int rung, const std::vector<RungRun>& runs,
             std::vector<RunOutcome>& outs, const std::vector<size_t>& todo) {
    const auto ended = [&](size_t i) {
      outs[i] = outcome_of(st, s, runs[i]);
      if (outs[i].done) result.summary.runs_trained++;  // a cancelled run is not one trained
      note_waiting(one, bs, rung, runs[i].id.trial, runs, outs);
      obs->on_search_decided(result.summary);
    };
    if (options.jobs > 1) {
      std::vector<RungRun> list;
      for (size_t i : todo) list.push_back(runs[i]);
      train_in_workers(s, options, list, *obs, *ctl, started, planned(), [&](size_t j) { ended(todo[j]); });
      return;
    }
    for (size_t i : todo) {
      if (ctl->cancel_requested()) return;
      obs->on_search_run(runs[i].id, runs[i].label, ++started, planned());
      train_rung_run(s, options, runs[i], bs, *obs, *ctl);
      ended(i);
    }
  }

  std::vector<int> decide(store::Store& st, const OneSearch& one, const BracketSetup& bs, int rung,
                          const std::vector<RungRun>& runs, const std::vector<int>& alive) {
    std::vector<search::TrialOutcome> outcomes;
    std::map<int, std::vector<std::int64_t>> run_ids;
    std::map<int, std::vector<std::vector<double>>> values;
    for (int t : alive) {
      search::TrialOutcome o;
      o.trial = t;
      o.values.assign(s.spec.objectives.size(), {});
      outcomes.push_back(o);
    }
    for (const auto& rr : runs) {
      const RunOutcome ro = outcome_of(st, s, rr);
      auto& o = *std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& x) { return x.trial == rr.id.trial; });
      run_ids[rr.id.trial].push_back(ro.run_id);
      if (ro.failed || !ro.done) {
        o.failed = true;
        o.reason = ro.done ? ro.reason : "a run did not end";
        continue;
      }
      for (size_t k = 0; k < ro.values.size(); ++k) o.values[k].push_back(ro.values[k]);
    }
    const bool last = rung + 1 == static_cast<int>(bs.bracket.rungs.size());
    const int keep = last ? static_cast<int>(alive.size()) : bs.bracket.rungs[static_cast<size_t>(rung + 1)].trials;
    const search::Decision d = search::promote(outcomes, s.spec.objectives, keep, s.spec.promotion);
    std::vector<store::SearchDecisionRow> rows;
    for (const auto& r : d.ranking) {
      const TrialSetup& ts = bs.trials[static_cast<size_t>(r.trial)];
      const bool promoted = std::find(d.promoted.begin(), d.promoted.end(), r.trial) != d.promoted.end();
      const std::string decision = r.failed ? "failed" : last ? "finished" : promoted ? "promoted" : "stopped";
      const auto why_it = d.why.find(r.trial);
      std::string why = why_it == d.why.end() ? "" : why_it->second;
      if (last && !r.failed) {
        const auto pos = std::find_if(d.ranking.begin(), d.ranking.end(), [&](const auto& x) { return x.trial == r.trial; });
        why = "rank " + std::to_string(pos - d.ranking.begin() + 1) + " of " + std::to_string(d.ranking.size()) +
              " at the full budget (" + core::format_number(row_resource(bs, rung)) + " " + s.spec.budget.resource + ")";
      }
      note_trial(one, bs, ts, rung, decision, &r, why, run_ids[r.trial]);
      store::SearchDecisionRow row;
      row.project = s.project.name;
      row.search = one.name;
      row.bracket = bs.bracket.index;
      row.rung = rung;
      row.trial = r.trial;
      row.resource = row_resource(bs, rung);
      row.label = ts.trial.label;
      row.decision = decision;
      row.why = why;
      const auto& o = *std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& x) { return x.trial == r.trial; });
      row.values_json = json(o.values).dump();
      row.runs_json = json(run_ids[r.trial]).dump();
      row.decided_at = now_ms();
      rows.push_back(std::move(row));
    }
    if (mode == Mode::Train && options.only.empty()) {
      // Decided afresh differently from the recorded rows (the section changed): this rung's
      // rows and the later ones, decided from them, are replaced.
      std::map<int, std::string> before, now;
      for (const auto& r : store::search_decisions(st, s.project.name, one.name))
        if (r.bracket == bs.bracket.index && r.rung == rung) before[r.trial] = r.decision;
      for (const auto& r : rows) now[r.trial] = r.decision;
      if (!before.empty() && before != now)
        store::clear_search_decisions_from(st, s.project.name, one.name, bs.bracket.index, rung);
      store::record_search_decisions(st, rows);
    }
    if (obs) obs->on_search_decided(result.summary);
    return last ? std::vector<int>{} : d.promoted;
  }

  // The planned compute: each rung's trial count x its seeds x the mean compute of a rung run of
  // the bracket's trials there (a rung run that continues the previous rung's stable phase pays
  // only its extra steps; search/rung_schedule.h). An estimate when promotions keep more.
  void compute_totals() {
    double total = 0;
    for (const auto& one : s.searches)
      for (const auto& bs : one.brackets) {
        for (const auto& r : bs.bracket.rungs) {
          result.summary.rungs.push_back({one.name, bs.bracket.index, r.index, row_resource(bs, r.index), r.trials});
          const std::int64_t steps = project::steps_for(s.spec.budget, r.resource, *one.base);
          const std::int64_t prev =
              r.index > 0 ? project::steps_for(s.spec.budget, row_resource(bs, r.index - 1), *one.base) : 0;
          double sum = 0;
          for (const TrialSetup& ts : bs.trials) {
            json training = one.base->training.used;
            if (ts.patch.contains("training")) training.merge_patch(ts.patch["training"]);
            sum += static_cast<double>(search::rung_schedule(project::warmup_cooldown(training), steps, prev).compute);
          }
          const double seeds = static_cast<double>(rung_seeds(s, static_cast<size_t>(r.trials)).size());
          total += static_cast<double>(r.trials) * seeds * (bs.trials.empty() ? 0.0 : sum / bs.trials.size());
        }
      }
    result.summary.steps_total = total;
  }

  void run() {
    result.summary.project = s.project.name;
    for (const auto& one : s.searches) result.summary.searches.push_back(one.name);
    for (const auto& o : s.spec.objectives) result.summary.objectives.push_back(o.metric);
    result.summary.resource = s.spec.budget.resource;
    compute_totals();
    bool complete = true;
    for (const auto& one : s.searches)
      for (const auto& bs : one.brackets) {
        if (result.cancelled) return;
        complete = walk_bracket(one, bs) && complete;
      }
    result.summary.complete = complete && !result.cancelled;
  }
};

}  // namespace

std::string SearchJobId::text() const {
  return search + ":b" + std::to_string(bracket) + ":t" + std::to_string(trial) + ":r" + std::to_string(rung) + ":s" +
         std::to_string(seed);
}

SearchJobId SearchJobId::parse(const std::string& text) {
  SearchJobId id;
  const auto bad = [&]() -> SearchJobId {
    throw core::Error("--only", "\"" + text + "\" is not a rung run; allowed: <variant>:b<N>:t<N>:r<N>:s<seed> (from --plan)");
  };
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.size() != 5 || parts[0].empty()) return bad();
  const char tags[] = {'b', 't', 'r', 's'};
  long long v[4];
  for (int i = 0; i < 4; ++i) {
    const std::string& p = parts[static_cast<size_t>(i + 1)];
    if (p.size() < 2 || p[0] != tags[i] || p.find_first_not_of("0123456789", 1) != std::string::npos) return bad();
    v[i] = std::stoll(p.substr(1));
  }
  id.search = parts[0];
  id.bracket = static_cast<int>(v[0]);
  id.trial = static_cast<int>(v[1]);
  id.rung = static_cast<int>(v[2]);
  id.seed = static_cast<std::uint64_t>(v[3]);
  return id;
}

SearchResult run_search(const std::string& project, const SearchOptions& options, SearchObserver& observer,
                        runtime::RunControl& control) {
  const Setup s = make_setup(project, options.searches);
  if (!options.only.empty()) {
    const auto [rr, bs] = find_rung_run(s, options.only, "--only");
    auto st = store::Store::open(s.project.store_path());
    SearchResult r;
    if (!outcome_of(st, s, rr).done) train_rung_run(s, options, rr, *bs, observer, control);
    r.summary.project = s.project.name;
    r.summary.runs_trained = 1;
    return r;
  }
  Walk w{s, options.plan ? Mode::Plan : Mode::Train, options, &observer, &control, {}, 0};
  w.run();
  return w.result;
}

project::RunPlan search_rung_plan(const std::string& project, const std::string& job) {
  const Setup s = make_setup(project, {});
  return find_rung_run(s, job, "search_run").first.plan;
}

SearchSummary search_status(const std::string& project) {
  const Setup s = make_setup(project, {});
  SearchOptions o;
  Walk w{s, Mode::Status, o, nullptr, nullptr, {}, 0};
  w.run();
  return w.result.summary;
}

std::string promote_search_trial(const std::string& project, const std::string& trial, const std::string& name) {
  const Setup s = make_setup(project, {});
  // "<variant>:t<N>" or "<variant>:b<B>:t<N>"
  const auto bad = [&]() -> std::string {
    throw core::Error("--promote", "\"" + trial + "\" is not a trial; allowed: <variant>:t<N> or <variant>:b<B>:t<N>");
  };
  std::vector<std::string> parts;
  std::stringstream ss(trial);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.size() < 2 || parts.size() > 3) return bad();
  int bracket = 0, index = -1;
  try {
    if (parts.size() == 3) {
      if (parts[1].size() < 2 || parts[1][0] != 'b') return bad();
      bracket = std::stoi(parts[1].substr(1));
    }
    const std::string& t = parts.back();
    if (t.size() < 2 || t[0] != 't') return bad();
    index = std::stoi(t.substr(1));
  } catch (const std::exception&) {
    return bad();
  }
  for (const auto& one : s.searches) {
    if (one.name != parts[0]) continue;
    if (parts.size() == 2 && one.brackets.size() == 1) bracket = one.brackets.front().bracket.index;
    for (const auto& bs : one.brackets) {
      if (bs.bracket.index != bracket || index < 0 || index >= static_cast<int>(bs.trials.size())) continue;
      const TrialSetup& ts = bs.trials[static_cast<size_t>(index)];
      if (!ts.infeasible.empty()) throw core::Error("--promote", trial + " is infeasible: " + ts.infeasible);
      json model = one.base->config["model"];
      if (ts.patch.contains("model")) model.merge_patch(ts.patch["model"]);
      model.erase("vocab_size");
      json training = one.base->training.used;
      if (ts.patch.contains("training")) training.merge_patch(ts.patch["training"]);
      const std::string n = name.empty() ? project::unique_variant_name(project, one.name + "-t" + std::to_string(index)) : name;
      project::add_variant(project, n, model, training);
      return n;
    }
  }
  return bad();
}

}  // namespace pha::search_runner
