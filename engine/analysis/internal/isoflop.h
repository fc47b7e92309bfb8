// The IsoFLOP view of a scaling study (Hoffmann et al. 2022, "approach 2"): runs over a grid of
// sizes x training lengths are grouped by training compute into budgets of (nearly) equal
// FLOPs; at each budget a parabola of loss against log10 N gives the loss-optimal size N*(C);
// across budgets N* = k C^a is fitted by least squares in log10-log10. Plain C++, no torch, no Qt.
//
// Budgets: the runs sorted by C; a budget starts at the smallest C not yet assigned and takes
// every run with log10 C within `tolerance` decades (0.1: a factor 1.26) above it. A grid whose
// sizes and step counts are log-spaced by the same factor puts its diagonals on equal C; the
// engine's FLOPs per token are not exactly proportional to N (embeddings, attention), hence the
// tolerance. A budget's C is the geometric mean of its runs' C, `spread` their max / min.
// Per budget: the mean loss at each distinct N (several runs of one N, e.g. seeds, averaged);
// with at least 3 sizes, the least-squares parabola y = c0 + c1 u + c2 u^2 in u = log10 N
// (every size weighted alike); N* = 10^(-c1 / (2 c2)) when c2 > 0 (an upward curve) and N* lies
// inside the sizes tried (bracketed); otherwise the budget has no N* and says why (the
// minimum lies beyond the sizes tried: extend the grid that way). min_loss is the parabola at
// N*. The exponent: ordinary least squares of log10 N* on log10 C over the budgets with a
// bracketed N*, with its standard error (sqrt of the residual variance over n - 2 degrees of
// freedom divided by the spread of log10 C); fewer than `min_budgets` (at least 3) such budgets:
// ok = false and "not enough budgets".
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace pha::analysis {

// One run: its parameters, its training FLOPs and its final loss.
struct IsoFlopPoint {
  double n = 0.0;
  double c = 0.0;
  double y = 0.0;
};

struct IsoFlopOptions {
  double tolerance = 0.1;        // decades of C one budget spans
  std::size_t min_budgets = 3;   // budgets with a bracketed N* needed for the exponent
};

struct IsoFlopBudget {
  double flops = 0.0;               // geometric mean of its runs' C
  double spread = 1.0;              // max C / min C of its runs
  std::vector<double> sizes;        // distinct N, ascending
  std::vector<double> losses;       // mean loss at each
  std::vector<std::size_t> counts;  // runs at each
  bool ok = false;                  // N* found inside the sizes
  std::string message;              // why not (ok = false)
  double c0 = 0.0, c1 = 0.0, c2 = 0.0;  // the parabola in log10 N
  double n_opt = std::numeric_limits<double>::quiet_NaN();
  double min_loss = std::numeric_limits<double>::quiet_NaN();
};

struct IsoFlopFit {
  std::vector<IsoFlopBudget> budgets;  // ascending C
  bool ok = false;                     // the exponent was fitted
  std::string message;                 // "not enough budgets: ..." (ok = false)
  std::size_t n_used = 0;              // budgets with a bracketed N*
  double exponent = std::numeric_limits<double>::quiet_NaN();     // a in N* = k C^a
  double exponent_se = std::numeric_limits<double>::quiet_NaN();  // its standard error (NaN below 3 budgets)
  double coefficient = std::numeric_limits<double>::quiet_NaN();  // k
};

// Points with a non-finite or non-positive n, c or y are left out. Never throws on data; a
// tolerance outside (0, 2] throws core::Error naming "tolerance".
IsoFlopFit isoflop_fit(const std::vector<IsoFlopPoint>& points, const IsoFlopOptions& options = {});

}  // namespace pha::analysis
