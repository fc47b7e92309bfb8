// Inline SVG line charts for the HTML report: drawn from the data here, no script, no external
// resource, so the file can be opened anywhere and exported as it is.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/report_document.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"

namespace pha::analysis::detail {

namespace {

constexpr double kW = 600, kH = 320, kLeft = 56, kRight = 170, kTop = 28, kBottom = 48;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string f(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

std::string tick_label(double v) {
  if (std::fabs(v) >= 1e6) return core::format_number(v / 1e6) + "M";
  if (std::fabs(v) >= 1e4) return core::format_number(v / 1e3) + "k";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

// 1, 2, 5 x 10^k inside [lo, hi] for a log axis; 5 even steps for a linear one.
std::vector<double> auto_ticks(double lo, double hi, bool log_axis) {
  std::vector<double> t;
  if (log_axis) {
    for (double p = std::pow(10.0, std::floor(std::log10(lo))); p <= hi * 1.0001; p *= 10)
      for (double m : {1.0, 2.0, 5.0})
        if (p * m >= lo * 0.9999 && p * m <= hi * 1.0001) t.push_back(p * m);
    return t;
  }
  for (int i = 0; i <= 4; ++i) t.push_back(lo + (hi - lo) * i / 4.0);
  return t;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_chart(const Chart& c) {
  double x_lo = INFINITY, x_hi = -INFINITY;
  for (const auto& s : c.series)
    for (const auto& p : s.points)
      if (std::isfinite(p.y) && (!c.x_log || p.x > 0)) x_lo = std::min(x_lo, p.x), x_hi = std::max(x_hi, p.x);
  for (double t : c.x_ticks) x_lo = std::min(x_lo, t), x_hi = std::max(x_hi, t);
  if (!std::isfinite(x_lo)) return "";  // nothing to draw
  if (x_hi <= x_lo) x_lo = c.x_log ? x_lo / 2 : x_lo - 1, x_hi = c.x_log ? x_hi * 2 : x_hi + 1;
  if (c.x_ticks.empty()) {  // keep the outermost points off the frame
    const double pad = c.x_log ? std::pow(x_hi / x_lo, 0.06) : 0.06 * (x_hi - x_lo);
    x_lo = c.x_log ? x_lo / pad : x_lo - pad, x_hi = c.x_log ? x_hi * pad : x_hi + pad;
  }
  auto tx = [&](double x) {
    const double u = c.x_log ? (std::log(x) - std::log(x_lo)) / (std::log(x_hi) - std::log(x_lo)) : (x - x_lo) / (x_hi - x_lo);
    return kLeft + u * (kW - kLeft - kRight);
  };
  auto ty = [&](double y) {
    const double v = std::clamp(y, c.y_min, c.y_max);
    return kH - kBottom - (v - c.y_min) / (c.y_max - c.y_min) * (kH - kTop - kBottom);
  };
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << kW << "\" height=\"" << kH
     << "\" viewBox=\"0 0 " << kW << " " << kH << "\" role=\"img\">";
  os << "<title>" << html_escape(c.title) << "</title>";
  os << "<text x=\"" << kLeft << "\" y=\"16\" class=\"ct\">" << html_escape(c.title) << "</text>";
  os << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kW - kLeft - kRight << "\" height=\""
     << kH - kTop - kBottom << "\" class=\"frame\"/>";
  for (double t : auto_ticks(c.y_min, c.y_max, false))
    os << "<line x1=\"" << kLeft << "\" x2=\"" << kW - kRight << "\" y1=\"" << f(ty(t)) << "\" y2=\"" << f(ty(t))
       << "\" class=\"grid\"/><text x=\"" << kLeft - 6 << "\" y=\"" << f(ty(t) + 4) << "\" class=\"yl\">"
       << tick_label(t) << "</text>";
  for (double t : c.x_ticks.empty() ? auto_ticks(x_lo, x_hi, c.x_log) : c.x_ticks)
    os << "<line x1=\"" << f(tx(t)) << "\" x2=\"" << f(tx(t)) << "\" y1=\"" << kTop << "\" y2=\"" << kH - kBottom
       << "\" class=\"grid\"/><text x=\"" << f(tx(t)) << "\" y=\"" << kH - kBottom + 16 << "\" class=\"xl\">"
       << tick_label(t) << "</text>";
  os << "<text x=\"" << (kLeft + kW - kRight) / 2 << "\" y=\"" << kH - 8 << "\" class=\"xl\">" << html_escape(c.x_label)
     << "</text>";
  os << "<text x=\"14\" y=\"" << (kTop + kH - kBottom) / 2 << "\" class=\"yt\" transform=\"rotate(-90 14 "
     << (kTop + kH - kBottom) / 2 << ")\">" << html_escape(c.y_label) << "</text>";
  size_t legend = 0;
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const size_t ci = s.color >= 0 ? static_cast<size_t>(s.color) : i;
    const char* color = kColors[ci % (sizeof(kColors) / sizeof(kColors[0]))];
    std::string line, upper, lower;
    for (const auto& p : s.points) {
      if (!std::isfinite(p.y) || (c.x_log && p.x <= 0)) continue;
      line += (line.empty() ? "" : " ") + f(tx(p.x)) + "," + f(ty(p.y));
      if (s.style == "curve") {
        if (std::isfinite(p.lo) && std::isfinite(p.hi)) {
          upper += (upper.empty() ? "" : " ") + f(tx(p.x)) + "," + f(ty(p.hi));
          lower = f(tx(p.x)) + "," + f(ty(p.lo)) + (lower.empty() ? "" : " ") + lower;
        }
        continue;
      }
      if (std::isfinite(p.lo) && std::isfinite(p.hi))
        os << "<line x1=\"" << f(tx(p.x)) << "\" x2=\"" << f(tx(p.x)) << "\" y1=\"" << f(ty(p.lo)) << "\" y2=\""
           << f(ty(p.hi)) << "\" stroke=\"" << color << "\" class=\"bar\"/>";
      os << "<circle cx=\"" << f(tx(p.x)) << "\" cy=\"" << f(ty(p.y)) << "\" r=\"3\" fill=\"" << color << "\"/>";
    }
    if (!upper.empty())
      os << "<polygon points=\"" << upper << " " << lower << "\" fill=\"" << color << "\" fill-opacity=\"0.15\" stroke=\"none\"/>";
    if (!line.empty() && s.style != "points")
      os << "<polyline points=\"" << line << "\" stroke=\"" << color << "\" class=\"line\"/>";
    if (s.name.empty()) continue;
    const double ly = kTop + 8 + 16.0 * static_cast<double>(legend++);
    os << "<rect x=\"" << kW - kRight + 12 << "\" y=\"" << f(ly - 8) << "\" width=\"10\" height=\"10\" fill=\"" << color
       << "\"/><text x=\"" << kW - kRight + 28 << "\" y=\"" << f(ly + 1) << "\" class=\"lg\">" << html_escape(s.name)
       << "</text>";
  }
  os << "</svg>";
  return os.str();
}

}  // namespace pha::analysis::detail

namespace pha::analysis {

// The chart classes as the HTML page styles them (report_html.cpp), for an SVG shown on its own.
std::string standalone_svg(const std::string& svg) {
  static const std::string style =
      "<style>text{font-family:sans-serif;font-size:11px}.frame{fill:none;stroke:#999}.grid{stroke:#e4e4e4}"
      ".line{fill:none;stroke-width:1.8}.bar{stroke-width:1.2}.xl{text-anchor:middle;fill:#444}"
      ".yl{text-anchor:end;fill:#444}.yt{text-anchor:middle;fill:#444}.ct{font-weight:600;fill:#222}.lg{fill:#222}</style>";
  const std::size_t open = svg.find('>');
  if (svg.rfind("<svg", 0) != 0 || open == std::string::npos) return svg;
  return svg.substr(0, open + 1) + style + svg.substr(open + 1);
}

}  // namespace pha::analysis
