// The report's number and text formats (mean ± std (n), [lo, hi], crossings, fits, times), public
// so that every view of a report (Markdown, HTML, `pha report`, the window's Report dock) prints
// the figures the same way. Plain C++: no torch, no Qt. Rules: docs/report.md.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/stats.h"

namespace pha::analysis {

struct CurveCrossing;
struct PowerLawFit;
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

}  // namespace pha::analysis
