// What the Search view shows of a search, built from the engine's SearchSummary
// (search_runner/search_job.h): the store's state (runtime::search_status) with the live updates of
// a running search laid over it, the leaderboard's order (the same as `pha search --status`),
// and the small facts the charts and buttons need (a trial's id for --promote, its runs for
// Compare, its layer pattern). Plain value code: no widgets, no store access.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

#include "search_runner/search_job.h"

namespace pha::gui {

// "pha-tiny:b0:t3": the trial's id for runtime::promote_search_trial (`pha search --promote`).
QString searchTrialId(const search_runner::SearchTrialState& t);
// "t3", "b1 t3" (Hyperband) or "pha-tiny t3" (more than one base variant searched).
QString searchTrialName(const search_runner::SearchTrialState& t, bool withSearch, bool withBracket);

// The live summary of a running search (every trial decided so far) laid over `base` (the
// store's state when it started: every trial, pending where nothing is decided yet): a trial
// of `live` replaces the same trial of `base`; trials only in `base` stay as they were. The
// totals and `complete` are the live ones'.
search_runner::SearchSummary mergeSearchSummary(const search_runner::SearchSummary& base,
                                               const search_runner::SearchSummary& live);

// A rung run started (`job`: runtime::SearchJobId text): its trial reads "running" at that rung
// (the rung's resource from summary.rungs, else from a trial of the same bracket that reached
// it). False when no trial of `summary` matches.
bool markSearchRunStarted(search_runner::SearchSummary& summary, const QString& job);

// The leaderboard's order over every trial (as `pha search --status`, per base variant in the
// summary's order): finished trials first, then the ones still in the race (promoted, trained
// and awaiting their rung's decision, running, cancelled, interrupted, pending), then the
// stopped ones, failed last; within a state the rung reached (higher first), then the first
// objective's mean in its direction, then bracket and trial. Indices into summary.trials.
std::vector<int> searchLeaderboardOrder(const search_runner::SearchSummary& summary);

// The trial's latest rung with measured objectives (its history's last point with a mean);
// nullptr when none is measured yet.
const search_runner::SearchRungPoint* latestMeasured(const search_runner::SearchTrialState& t);

// The runs Compare gets for a trial: its latest rung's runs that exist (one per seed), else
// the latest measured rung's.
QList<qint64> searchTrialRuns(const search_runner::SearchTrialState& t);

// The trial's per-layer pattern (its values' "pattern", the tokens of model.layers: "gss",
// "attn", "parallel", "gss+attn", ...); empty when the search varies no pattern.
QStringList searchTrialPattern(const search_runner::SearchTrialState& t);

// "2.3104 ± 0.0123", "2.3104" (one replica or no spread), "" when not measured.
QString searchMeanText(const std::vector<double>& mean, const std::vector<double>& stdev, std::size_t objective);

// One line on where the search stands: "12 trials: 1 finished, 3 promoted, 8 stopped; complete".
QString searchStandingText(const search_runner::SearchSummary& summary);

}  // namespace pha::gui
