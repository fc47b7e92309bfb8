// The report's number and text formats (mean ± std (n), [lo, hi], crossings, fits, times), public
// so that every view of a report (Markdown, HTML, `pha report`, the window's Report dock) prints
// the figures the same way. Plain C++: no torch, no Qt. Rules: docs/report.md.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/stats.h"

namespace pha::analysis {

struct ClaimRow;
struct CurveCrossing;
struct Measured;
struct PowerLawFit;
struct RowBudget;
struct ScalingCross;

// "1.2346": 4 decimals below 10, 2 below 1,000, 1 below 100,000, else none (never an exponent);
// "-" for NaN.
std::string num(double v);
// "1.2346 ± 0.0123 (n=3)", "11.19 ± 0.18 (n=3)" (the spread to the mean's decimals);
// "1.2346 (n=1)"; "- (n=0)".
std::string mean_std(const Stats& s);
// "[1.2001, 1.2690]", or "" without an interval.
std::string interval(double low, double high);
// "1.2e+05" style for budgets, FLOPs and parameter counts: 3 significant digits.
std::string sci(double v);
// One learning-curve crossing in words: "on tokens: cross at 1.23e+05 (better at the end: b)".
std::string crossing_text(const CurveCrossing& c);
// "E = 1.234 [1.1, 1.3], A = ..., alpha = 0.31 [0.2, 0.4]; rmse 0.0123; n 12" of a fit, or why
// there is none.
std::string fit_text(const PowerLawFit& fit);
// A crossover of two fitted curves in words.
std::string crossover_text(const ScalingCross& c, const std::string& x_label);
// "2026-12-01 11:57" (local time) of milliseconds since the epoch.
std::string local_time(int64_t ms);

// A claim row's fields in words (report_format.cpp), the same in every view:
// "0.0123", "0.00042", "< 0.0001", "-" (NaN).
std::string p_text(double p);
// "pha: 0.8500 ± 0.0500 (n=3) [0.7258, 0.9742]"; with a success count (accuracy_at_params):
// "pha (1800 parameters): 4/5 reach the threshold, Wilson 95% [0.3755, 0.9638]; mean accuracy 0.9120".
std::string measured_text(const Measured& m);
// "0.1196 [0.0875, 0.1517]" (the effect and its 95% interval), "-" without one.
std::string effect_text(const ClaimRow& row);
// "0.0123 / 0.0369" (raw / adjusted), "-" for a row without a test.
std::string p_pair_text(const ClaimRow& row);
// "MDE 0.0312; 7 seeds per side" (the seeds only for an inconclusive row), "-" without.
std::string power_text(const ClaimRow& row);
// "eval SE: pha 0.0021, gss-only 0.0019" / "eval SE not recorded"; "" where it does not apply.
std::string eval_se_text(const ClaimRow& row);
// "1.23e+05 tokens per replica, 24.6 tokens/parameter", with "; early training (3.1
// tokens/parameter < 20)" below the threshold; "-" when unknown.
std::string budget_text(const RowBudget& budget, double early_threshold);
// "early training (3.1 tokens/parameter < 20)".
std::string early_text(double tokens_per_param, double threshold);

}  // namespace pha::analysis
