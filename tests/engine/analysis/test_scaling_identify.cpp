// Identifiability checks and leave-one-out predictions of scaling-law fits, and the IsoFLOP
// view, on synthetic points from known laws: a good design (6 sizes over 1.5 decades, small
// noise) predicts its held-out largest size within 1% and raises no flag; a narrow one (4 sizes
// over half a decade) is flagged; E on its bound and a flat-at-zero E interval are flagged;
// IsoFLOP budgets recover the optimal size of a loss surface with a known minimum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/internal/isoflop.h"
#include "analysis/internal/scaling_identify.h"
#include "core/error.h"

namespace pa = pha::analysis;

namespace scaling_identify_test {

double law(double E, double A, double alpha, double x) { return E + A * std::pow(x, -alpha); }

// `n` sizes log-spaced over `decades` from x0, `seeds` points each from the law plus Gaussian
// noise (Box-Muller on mt19937_64: the same points under every standard library).
std::vector<pa::ScalingPoint> design(int n, double decades, int seeds, double sigma, std::uint64_t seed,
                                     double E = 1.5, double A = 40.0, double alpha = 0.3, double x0 = 1e4) {
  std::mt19937_64 g(seed);
  auto uniform = [&] { return (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53; };
  std::vector<pa::ScalingPoint> pts;
  for (int i = 0; i < n; ++i) {
    const double x = x0 * std::pow(10.0, decades * i / (n - 1));
    for (int s = 0; s < seeds; ++s) {
      const double z = std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
      pts.push_back({x, law(E, A, alpha, x) + sigma * z});
    }
  }
  return pts;
}

bool has_flag(const pa::Identifiability& id, const std::string& words) {
  for (const auto& f : id.flags)
    if (f.find(words) != std::string::npos) return true;
  return false;
}

std::string flags_of(const pa::Identifiability& id) {
  std::string s;
  for (const auto& f : id.flags) s += "[" + f + "] ";
  return s;
}


TEST(ScalingIdentify, AGoodDesignPredictsItsLargestSizeAndRaisesNoFlag) {
  const auto pts = design(6, 1.5, 2, 0.003, 11);
  pa::FitOptions o;
  o.n_boot = 300;
  const pa::PowerLawFit fit = pa::fit_power_law(pts, o);
  ASSERT_TRUE(fit.ok) << fit.message;
  const pa::Identifiability id = pa::identify_fit(pts, fit, o);
  ASSERT_TRUE(id.checked);
  EXPECT_EQ(id.n_sizes, 6u);
  EXPECT_NEAR(id.decades, 1.5, 1e-12);
  EXPECT_FALSE(id.few_sizes);
  EXPECT_FALSE(id.narrow_span);
  EXPECT_TRUE(id.identified()) << flags_of(id);
  // The largest size held out: predicted from the other five, within 1% of its measured mean,
  // with a bootstrap interval of the prediction around it.
  const pa::HeldOut& h = id.largest;
  ASSERT_TRUE(h.ok) << h.message;
  EXPECT_DOUBLE_EQ(h.x, 1e4 * std::pow(10.0, 1.5));
  EXPECT_EQ(h.n_points, 2u);
  EXPECT_TRUE(h.within);
  EXPECT_LT(std::fabs(h.rel_error), 0.01);
  EXPECT_NEAR(h.rel_error, (h.predicted - h.measured) / h.measured, 1e-15);
  ASSERT_TRUE(h.predicted_ci.valid());
  EXPECT_LE(h.predicted_ci.low, h.predicted);
  EXPECT_GE(h.predicted_ci.high, h.predicted);
  EXPECT_NEAR(h.refit.alpha, 0.3, 0.05);
  // Every size held out in turn; the worst is one of them, the largest is among them.
  ASSERT_EQ(id.each.size(), 6u);
  for (const auto& e : id.each) EXPECT_TRUE(e.ok) << e.message;
  EXPECT_EQ(id.each.back().predicted, h.predicted);
  for (const auto& e : id.each) EXPECT_LE(std::fabs(e.rel_error), std::fabs(id.each[id.worst].rel_error));
  EXPECT_FALSE(id.each.front().predicted_ci.valid()) << "per-size refits are point fits";
}

TEST(ScalingIdentify, NoiseFreePointsArePredictedExactly) {
  const auto pts = design(5, 2.0, 1, 0.0, 1);
  pa::FitOptions o;
  o.n_boot = 0;
  const pa::PowerLawFit fit = pa::fit_power_law(pts, o);
  const pa::Identifiability id = pa::identify_fit(pts, fit, o);
  for (const auto& e : id.each) EXPECT_LT(std::fabs(e.rel_error), 1e-6) << "x " << e.x;
  EXPECT_TRUE(id.identified()) << flags_of(id);  // no bootstrap: the interval rules are not applied
  EXPECT_TRUE(std::isnan(id.alpha_ratio));
}

TEST(ScalingIdentify, FewSizesOverHalfADecadeAreFlagged) {
  const auto pts = design(4, 0.5, 2, 0.01, 5);
  pa::FitOptions o;
  o.n_boot = 300;
  const pa::PowerLawFit fit = pa::fit_power_law(pts, o);
  ASSERT_TRUE(fit.ok);
  const pa::Identifiability id = pa::identify_fit(pts, fit, o);
  EXPECT_TRUE(id.few_sizes);
  EXPECT_TRUE(id.narrow_span);
  EXPECT_FALSE(id.identified());
  EXPECT_TRUE(has_flag(id, "4 sizes (fewer than 5)")) << flags_of(id);
  EXPECT_TRUE(has_flag(id, "the sizes span 0.5 decades (less than 1.5)")) << flags_of(id);
  EXPECT_TRUE(id.alpha_ci_wide) << fit.alpha_ci.low << " " << fit.alpha_ci.high;
  EXPECT_TRUE(has_flag(id, "alpha's 95% interval")) << flags_of(id);
  // The largest size is still predicted (3 sizes remain), its error reported whatever it is.
  EXPECT_TRUE(id.largest.ok);
  EXPECT_TRUE(std::isfinite(id.largest.rel_error));
}

TEST(ScalingIdentify, ThreeSizesCannotPredictTheLargest) {
  const auto pts = design(3, 1.0, 2, 0.0, 1);
  pa::FitOptions o;
  o.n_boot = 0;
  const pa::PowerLawFit fit = pa::fit_power_law(pts, o);
  ASSERT_TRUE(fit.ok);
  const pa::Identifiability id = pa::identify_fit(pts, fit, o);
  EXPECT_FALSE(id.largest.ok);
  EXPECT_NE(id.largest.message.find("needs at least 3 distinct x"), std::string::npos) << id.largest.message;
  EXPECT_TRUE(has_flag(id, "the largest size cannot be predicted")) << flags_of(id);
  EXPECT_FALSE(id.identified());
}

TEST(ScalingIdentify, EOnItsBoundAndAnIntervalReachingZeroAreFlagged) {
  // Points that curve less than any E >= 0 allows (a law with E = -0.5): E ends on 0 and the
  // replicas put it there too.
  std::vector<pa::ScalingPoint> pts = design(6, 1.5, 2, 0.002, 3, /*E=*/-0.5, /*A=*/5.0, /*alpha=*/0.1);
  pa::FitOptions o;
  o.n_boot = 300;
  const pa::PowerLawFit fit = pa::fit_power_law(pts, o);
  ASSERT_TRUE(fit.ok);
  const pa::Identifiability id = pa::identify_fit(pts, fit, o);
  ASSERT_TRUE(fit.E_on_bound) << "E " << fit.E;
  EXPECT_TRUE(has_flag(id, "E = 0, on its lower bound")) << flags_of(id);
  EXPECT_TRUE(id.E_ci_reaches_zero);
  EXPECT_TRUE(has_flag(id, "E's 95% interval reaches 0")) << flags_of(id);
  EXPECT_FALSE(id.identified());

  // Loss rising with size: no decreasing law fits; E ends at the lowest loss or A at 0.
  std::vector<pa::ScalingPoint> rising;
  for (double x : {1e4, 3e4, 1e5, 3e5, 1e6, 3e6}) rising.push_back({x, 2.0 + 0.01 * std::log10(x)});
  const pa::PowerLawFit rf = pa::fit_power_law(rising, o);
  ASSERT_TRUE(rf.ok);
  const pa::Identifiability ri = pa::identify_fit(rising, rf, o);
  EXPECT_TRUE(has_flag(ri, "E = the lowest loss, on its upper bound") || has_flag(ri, "A = 0, on its bound"))
      << flags_of(ri);
  EXPECT_FALSE(ri.identified());
}

TEST(ScalingIdentify, AFailedFitIsNotChecked) {
  const std::vector<pa::ScalingPoint> two = {{1e4, 3.0}, {1e5, 2.5}};
  pa::FitOptions o;
  o.n_boot = 0;
  const pa::PowerLawFit fit = pa::fit_power_law(two, o);
  ASSERT_FALSE(fit.ok);
  const pa::Identifiability id = pa::identify_fit(two, fit, o);
  EXPECT_FALSE(id.checked);
  EXPECT_FALSE(id.identified());
  EXPECT_EQ(pa::percent_text(-0.0123), "-1.23%");
  EXPECT_EQ(pa::percent_text(NAN), "-");
}

// A loss surface with a known compute-optimal size: L(N, D) = E + A N^-a + B D^-b with C = 6 N D.
// At fixed C, dL/dN = 0 gives N* = G (C / 6)^(b / (a + b)), G = (a A / (b B))^(1 / (a + b)).
constexpr double kE = 1.7, kA = 400.0, kB = 400.0, kAlphaN = 0.34, kBetaD = 0.28;
double surface(double n, double d) { return kE + kA * std::pow(n, -kAlphaN) + kB * std::pow(d, -kBetaD); }
double n_opt(double c) {
  const double g = std::pow(kAlphaN * kA / (kBetaD * kB), 1.0 / (kAlphaN + kBetaD));
  return g * std::pow(c / 6.0, kBetaD / (kAlphaN + kBetaD));
}
TEST(IsoFlop, BudgetsOfAGridRecoverTheOptimalSizeExponent) {
  // Sizes log-spaced by 10^0.25, budgets log-spaced by 10^0.5; at each budget 7 sizes around its
  // optimum, tokens D = C / (6 N) (two seeds: the same value twice).
  std::vector<pa::IsoFlopPoint> pts;
  const std::vector<double> budgets = {1e13, std::pow(10.0, 13.5), 1e14, std::pow(10.0, 14.5)};
  for (double c : budgets) {
    const double center = std::round(std::log10(n_opt(c)) * 4.0) / 4.0;
    for (int k = -3; k <= 3; ++k) {
      const double n = std::pow(10.0, center + 0.25 * k);
      const double c_run = c * (1.0 + 0.02 * k);  // FLOPs per token not exactly 6N: a little spread
      for (int s = 0; s < 2; ++s) pts.push_back({n, c_run, surface(n, c_run / (6.0 * n))});
    }
  }
  const pa::IsoFlopFit f = pa::isoflop_fit(pts);
  ASSERT_EQ(f.budgets.size(), 4u);
  ASSERT_TRUE(f.ok) << f.message;
  EXPECT_EQ(f.n_used, 4u);
  for (size_t i = 0; i < 4; ++i) {
    const pa::IsoFlopBudget& b = f.budgets[i];
    EXPECT_NEAR(std::log10(b.flops), std::log10(budgets[i]), 0.01);
    EXPECT_EQ(b.sizes.size(), 7u);
    EXPECT_EQ(b.counts[0], 2u);
    ASSERT_TRUE(b.ok) << b.message;
    EXPECT_NEAR(std::log10(b.n_opt), std::log10(n_opt(b.flops)), 0.1) << "budget " << b.flops;
    EXPECT_LE(b.min_loss, *std::min_element(b.losses.begin(), b.losses.end()) + 1e-3);
  }
  EXPECT_NEAR(f.exponent, kBetaD / (kAlphaN + kBetaD), 0.05);
  EXPECT_TRUE(std::isfinite(f.exponent_se));
}

TEST(IsoFlop, TooFewBudgetsAndUnbracketedMinimaAreSaid) {
  std::vector<pa::IsoFlopPoint> pts;
  // Two budgets with a minimum inside their sizes, one whose losses fall to the largest size.
  for (double c : {1e13, 1e14}) {
    const double center = std::log10(n_opt(c));
    for (int k = -2; k <= 2; ++k) {
      const double n = std::pow(10.0, center + 0.3 * k);
      pts.push_back({n, c, surface(n, c / (6.0 * n))});
    }
  }
  const double c3 = 1e15;
  for (int k = -6; k <= -4; ++k) {
    const double n = std::pow(10.0, std::log10(n_opt(c3)) + 0.3 * k);
    pts.push_back({n, c3, surface(n, c3 / (6.0 * n))});
  }
  pts.push_back({1e5, 1e16, 2.0});  // a budget of one size
  const pa::IsoFlopFit f = pa::isoflop_fit(pts);
  ASSERT_EQ(f.budgets.size(), 4u);
  EXPECT_TRUE(f.budgets[0].ok);
  EXPECT_TRUE(f.budgets[1].ok);
  EXPECT_FALSE(f.budgets[2].ok);
  EXPECT_NE(f.budgets[2].message.find("not bracketed"), std::string::npos) << f.budgets[2].message;
  EXPECT_FALSE(f.budgets[3].ok);
  EXPECT_NE(f.budgets[3].message.find("1 size at this budget"), std::string::npos) << f.budgets[3].message;
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.message.rfind("not enough budgets: 2 of 4", 0), 0u) << f.message;
  EXPECT_TRUE(std::isnan(f.exponent));
  EXPECT_THROW(pa::isoflop_fit(pts, {0.0, 3}), pha::core::Error);
}

}  // namespace scaling_identify_test
