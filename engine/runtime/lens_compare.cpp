// Per-token comparison of two runs or two groups of seeded replicas (lens.h, compare_tokens),
// and the lens's per-token CSV files (docs/lens.md, "Per-token loss and difference").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "data/batch.h"
#include "data/rng.h"
#include "runtime/lens.h"
#include "core/numbers.h"

namespace pha::runtime {

namespace {


// Per window and bin: summed NLL of each side and the counted positions.
struct BinSums {
  std::vector<double> a, b;
  std::vector<int64_t> n;
};

TokenComparison::Bin summarise(const std::string& label, const BinSums& s, int bootstrap, uint64_t seed) {
  TokenComparison::Bin bin;
  bin.label = label;
  double sa = 0, sb = 0;
  int64_t n = 0;
  for (size_t w = 0; w < s.n.size(); ++w) sa += s.a[w], sb += s.b[w], n += s.n[w];
  bin.tokens = n;
  if (n == 0) {
    bin.mean_a = bin.mean_b = bin.mean_diff = bin.lo = bin.hi = core::kNaNf;
    return bin;
  }
  bin.mean_a = sa / static_cast<double>(n);
  bin.mean_b = sb / static_cast<double>(n);
  bin.mean_diff = bin.mean_a - bin.mean_b;
  // Percentile bootstrap over windows (the unit: positions of one window are not independent).
  std::vector<double> draws;
  data::Rng rng(seed);
  const uint64_t W = s.n.size();
  for (int r = 0; r < bootstrap && W > 1; ++r) {
    double d = 0;
    int64_t c = 0;
    for (uint64_t k = 0; k < W; ++k) {
      const uint64_t w = rng.below(W);
      d += s.a[w] - s.b[w];
      c += s.n[w];
    }
    if (c > 0) draws.push_back(d / static_cast<double>(c));
  }
  if (draws.size() < 20) {
    bin.lo = bin.hi = core::kNaNf;  // one window (or too few draws): no interval
    return bin;
  }
  std::sort(draws.begin(), draws.end());
  auto q = [&](double p) { return draws[static_cast<size_t>(std::lround(p * static_cast<double>(draws.size() - 1)))]; };
  bin.lo = q(0.025);
  bin.hi = q(0.975);
  return bin;
}

std::string group_label(Lens& first, const std::vector<int64_t>& runs) {
  if (runs.size() == 1) return first.info().run_name + " (run " + std::to_string(runs.front()) + ")";
  std::string ids;
  for (int64_t r : runs) ids += (ids.empty() ? "" : ", ") + std::to_string(r);
  return first.info().run_name + " + " + std::to_string(runs.size() - 1) + " replicas (runs " + ids + ")";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string num(double v) {
  if (std::isnan(v)) return "";
  std::ostringstream o;
  o.precision(7);
  o << v;
  return o.str();
}

}  // namespace

TokenComparison compare_tokens(const std::string& store_path, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b, const LensSource& source, const LensOptions& options,
                               int bootstrap, uint64_t seed) {
  const auto t0 = std::chrono::steady_clock::now();
  if (a.empty()) throw core::Error("--run", "give the run (or runs) to compare");
  if (b.empty()) throw core::Error("--compare", "give the run (or runs) to compare against");
  if (bootstrap < 0 || bootstrap > 100000) throw core::Error("--bootstrap", "must be between 0 and 100,000");
  TokenComparison out;
  out.runs_a = a;
  out.runs_b = b;
  out.bootstrap = bootstrap;
  std::vector<float> sum_a, sum_b;
  auto add = [&](const std::vector<int64_t>& runs, std::vector<float>& sum, std::string& label) {
    for (size_t i = 0; i < runs.size(); ++i) {
      Lens lens(store_path, runs[i], options);
      const LensWindows w = lens.windows(source);
      if (out.windows.inputs.empty()) {
        out.windows = w;
      } else if (w.inputs != out.windows.inputs || w.targets != out.windows.targets) {
        throw core::Error("--compare", "run " + std::to_string(runs[i]) + " reads other tokens from this source than run " +
                                     std::to_string(a.front()) +
                                     " (another data set or tokenizer); a per-token comparison needs the same tokens");
      }
      if (i == 0) label = group_label(lens, runs);
      const TokenLosses t = lens.token_losses(w);
      if (sum.empty()) sum.assign(t.nll.size(), 0.0f);
      for (size_t k = 0; k < t.nll.size(); ++k) sum[k] += t.nll[k];
    }
    for (float& v : sum) v /= static_cast<float>(runs.size());
  };
  add(a, sum_a, out.label_a);
  add(b, sum_b, out.label_b);
  out.nll_a = std::move(sum_a);
  out.nll_b = std::move(sum_b);
  const LensWindows& w = out.windows;
  out.diff.assign(out.nll_a.size(), core::kNaNf);
  for (size_t k = 0; k < out.diff.size(); ++k)
    if (w.targets[k] != data::kIgnore) out.diff[k] = out.nll_a[k] - out.nll_b[k];

  // Bins: all, position (log2: 1, 2-3, 4-7, ... in 1-based positions), class.
  int pos_bins = 0;
  while ((1 << pos_bins) <= w.T) ++pos_bins;
  const size_t C = w.class_names.size();
  const size_t W = static_cast<size_t>(w.B);
  auto empty = [&] { return BinSums{std::vector<double>(W, 0.0), std::vector<double>(W, 0.0), std::vector<int64_t>(W, 0)}; };
  BinSums all = empty();
  std::vector<BinSums> by_pos(static_cast<size_t>(pos_bins), empty()), by_cls(C, empty());
  for (size_t win = 0; win < W; ++win) {
    for (int t = 0; t < w.T; ++t) {
      const size_t k = win * static_cast<size_t>(w.T) + static_cast<size_t>(t);
      if (std::isnan(out.diff[k])) continue;
      int p = 0;
      while ((2 << p) <= t + 1) ++p;
      if (w.scored[k])
        for (BinSums* s : {&all, &by_pos[static_cast<size_t>(p)]}) s->a[win] += out.nll_a[k], s->b[win] += out.nll_b[k], ++s->n[win];
      if (w.cls[k] >= 0) {
        BinSums& s = by_cls[static_cast<size_t>(w.cls[k])];
        s.a[win] += out.nll_a[k], s.b[win] += out.nll_b[k], ++s.n[win];
      }
    }
  }
  out.overall = summarise("all", all, bootstrap, seed);
  for (int p = 0; p < pos_bins; ++p) {
    const int lo = 1 << p, hi = std::min((2 << p) - 1, w.T);
    const std::string label = lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
    TokenComparison::Bin bin = summarise(label, by_pos[static_cast<size_t>(p)], bootstrap, seed + 1 + static_cast<uint64_t>(p));
    if (bin.tokens > 0) out.by_position.push_back(std::move(bin));
  }
  for (size_t c = 0; c < C; ++c) {
    TokenComparison::Bin bin = summarise(w.class_names[c], by_cls[c], bootstrap, seed + 100 + c);
    if (bin.tokens > 0) out.by_class.push_back(std::move(bin));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string token_losses_csv(const TokenLosses& t) {
  const LensWindows& w = t.windows;
  std::ostringstream o;
  o << "window,position,class,input,target,nll";
  for (size_t l = 0; l < t.contribution.size(); ++l)
    for (int b = 0; b < 3; ++b)
      if (!t.contribution[l][static_cast<size_t>(b)].empty())
        o << ",L" << l << "." << (b == 0 ? "gss" : b == 1 ? "attn" : "ffn");
  o << "\n";
  for (size_t k = 0; k < t.nll.size(); ++k) {
    if (w.targets[k] == data::kIgnore) continue;
    o << k / static_cast<size_t>(w.T) << "," << k % static_cast<size_t>(w.T) << ","
      << (w.cls[k] >= 0 ? w.class_names[static_cast<size_t>(w.cls[k])] : "") << "," << csv_field(w.input_text[k]) << ","
      << csv_field(w.target_text[k]) << "," << num(t.nll[k]);
    for (const auto& layer : t.contribution)
      for (const auto& c : layer)
        if (!c.empty()) o << "," << num(c[k]);
    o << "\n";
  }
  return o.str();
}

std::string token_comparison_csv(const TokenComparison& c) {
  const LensWindows& w = c.windows;
  std::ostringstream o;
  o << "window,position,class,input,target,nll_a,nll_b,diff\n";
  for (size_t k = 0; k < c.diff.size(); ++k) {
    if (std::isnan(c.diff[k])) continue;
    o << k / static_cast<size_t>(w.T) << "," << k % static_cast<size_t>(w.T) << ","
      << (w.cls[k] >= 0 ? w.class_names[static_cast<size_t>(w.cls[k])] : "") << "," << csv_field(w.input_text[k]) << ","
      << csv_field(w.target_text[k]) << "," << num(c.nll_a[k]) << "," << num(c.nll_b[k]) << "," << num(c.diff[k]) << "\n";
  }
  return o.str();
}

}  // namespace pha::runtime
