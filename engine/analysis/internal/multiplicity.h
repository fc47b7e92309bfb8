// Corrections for testing several claims in one report: Holm's (1979) step-down adjusted
// p-values, and Dunnett's (1955) many-to-one comparisons against a control (pooled variance),
// whose adjusted p is estimated by a seeded Monte Carlo of the multivariate t (deterministic:
// the same data give the same p on every machine). Plain C++, no torch, no Qt. How the report
// uses them: docs/report.md, Statistics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pha::analysis {

// Holm's adjusted p-values, in the input's order: with p sorted ascending p(1) <= ... <= p(m),
// adj(i) = max over j <= i of min(1, (m - j + 1) p(j)). NaN entries are not tests: they stay
// NaN and do not count in m.
std::vector<double> holm_adjust(const std::vector<double>& p);
// Bonferroni's min(1, m p), with m the finite entries (for comparisons in tests and docs).
std::vector<double> bonferroni_adjust(const std::vector<double>& p);

// The Monte Carlo behind Dunnett's adjusted p: draws of the null distribution of
// max_i |T_i|, T_i = (M_i - M_0) / (S sqrt(1/n_i + 1/n_0)) with M_g ~ N(0, 1/n_g) and
// S^2 ~ chi^2(df) / df, from a splitmix64 stream seeded with `seed` (Box-Muller normals,
// Marsaglia-Tsang gamma). The standard error of an adjusted p near 0.05 is about 0.0005.
inline constexpr std::size_t kDunnettDraws = 200000;
inline constexpr uint64_t kDunnettSeed = 19550101;  // Dunnett 1955

// Adjusted p of each treatment's |t| against the control: the share of draws whose maximum
// reaches it, held within the bounds the exact value obeys: at least the raw two-sided p, at
// most Sidak's 1 - (1 - p)^k (itself below Bonferroni's k p). n_treatment[i]: replicas of
// treatment i; df: of the pooled variance.
std::vector<double> dunnett_adjust(const std::vector<double>& abs_t, const std::vector<std::size_t>& n_treatment,
                                   std::size_t n_control, double df, std::size_t draws = kDunnettDraws,
                                   uint64_t seed = kDunnettSeed);

// Dunnett's comparisons from the replicas' values (NaN left out): each treatment against the
// control with the variance pooled over every group (df = N - groups).
struct DunnettResult {
  bool valid = false;           // every group has 2 or more values
  double pooled_sd = 0.0;
  double df = 0.0;
  std::vector<double> effect;   // mean(treatment) - mean(control)
  std::vector<double> se;       // pooled_sd * sqrt(1/n_i + 1/n_0)
  std::vector<double> low, high;  // the 95% pooled-t interval of each effect (unadjusted)
  std::vector<double> p;        // raw two-sided p of each t
  std::vector<double> p_adjusted;
};
DunnettResult dunnett(const std::vector<double>& control, const std::vector<std::vector<double>>& treatments,
                      std::size_t draws = kDunnettDraws, uint64_t seed = kDunnettSeed);

}  // namespace pha::analysis
