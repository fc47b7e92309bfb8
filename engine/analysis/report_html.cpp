// The report as one self-contained HTML page: the one document (analysis/report_document.h) laid
// out with inline CSS, plots as inline SVG drawn from the data (report_svg.cpp), no script and no
// external resource, so the window can export it as it is. XHTML-style (void elements closed) so XML tools can read it.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/report.h"
#include "analysis/report_document.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"

namespace pha::analysis {

namespace {

using detail::html_escape;

constexpr const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.1em}
table{border-collapse:collapse;margin:0.6em 0 1em}th,td{border:1px solid #ccc;padding:0.25em 0.5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:0.1em 0.5em;border-radius:0.3em;font-weight:600}
.holds{background:#d8f0d8;color:#145214}.not{background:#f6d5d5;color:#7a1111}.inconclusive{background:#e8e8e8;color:#444}
.mixed{background:#fbe6c2;color:#6b4500}.equiv{background:#dcd6f0;color:#3b2a6b}.few{background:#dde6f3;color:#233a5e}.early{color:#8a4b00;font-weight:600}.meta{color:#555;font-size:0.9em}.reason{color:#555;font-size:0.9em}
svg.chart{display:block;margin:0.5em 0 1.5em;font-size:11px}svg .frame{fill:none;stroke:#999}svg .grid{stroke:#e4e4e4}
svg .line{fill:none;stroke-width:1.8}svg .bar{stroke-width:1.2}svg .xl{text-anchor:middle;fill:#444}
svg .yl{text-anchor:end;fill:#444}svg .yt{text-anchor:middle;fill:#444}svg .ct{font-weight:600;fill:#222}svg .lg{fill:#222}
)css";

const char* verdict_class(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::DoesNotHold: return "not";
    case Verdict::Mixed: return "mixed";
    case Verdict::TooFewReplicas: return "few";
    case Verdict::Equivalent:
    case Verdict::SmallerThanEffect: return "equiv";
    case Verdict::Inconclusive: break;
  }
  return "inconclusive";
}

std::string html_spans(const Spans& spans) {
  std::string s;
  for (const auto& span : spans) {
    const std::string t = html_escape(span.text);
    if (span.verdict) {
      s += std::string("<span class=\"verdict ") + verdict_class(*span.verdict) + "\">" + t + "</span>";
      continue;
    }
    switch (span.style) {
      case SpanStyle::Plain: s += t; break;
      case SpanStyle::Strong: s += "<b>" + t + "</b>"; break;
      case SpanStyle::Code: s += "<code>" + t + "</code>"; break;
      case SpanStyle::Secondary: s += "<span class=\"reason\">" + t + "</span>"; break;
      case SpanStyle::Warning: s += "<span class=\"early\">" + t + "</span>"; break;
    }
  }
  return s;
}

// A cell's spans one line each (the text views join them with the cell's separator).
std::string html_cell(const Cell& c) {
  std::string cls = std::string(c.numeric ? "n" : "") + (c.warn ? std::string(c.numeric ? " " : "") + "early" : "");
  std::string s = cls.empty() ? "<td>" : "<td class=\"" + cls + "\">";
  for (size_t i = 0; i < c.spans.size(); ++i) s += (i ? "<br/>" : "") + html_spans({c.spans[i]});
  return s + "</td>";
}

void html_block(const Block& b, std::ostringstream& os) {
  switch (b.kind) {
    case BlockKind::Heading: {
      const std::string h = "h" + std::to_string(std::clamp(b.level, 1, 6));
      os << "<" << h << ">" << html_spans(b.text) << "</" << h << ">";
      break;
    }
    case BlockKind::Paragraph: os << (b.meta ? "<p class=\"meta\">" : "<p>") << html_spans(b.text) << "</p>"; break;
    case BlockKind::List:
      os << "<ul>";
      for (const auto& item : b.items) os << "<li>" << html_spans(item) << "</li>";
      os << "</ul>";
      break;
    case BlockKind::Table:
      os << "<table><tr>";
      for (const auto& c : b.columns) os << "<th>" << html_escape(c) << "</th>";
      os << "</tr>";
      for (const auto& row : b.rows) {
        os << "<tr>";
        for (const auto& c : row) os << html_cell(c);
        os << "</tr>";
      }
      os << "</table>";
      break;
    case BlockKind::Chart: os << b.svg; break;
  }
}

}  // namespace

std::string render_html(const ReportDocument& d) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>" << html_escape(d.title)
     << "</title><style>" << kStyle << "</style></head><body>";
  for (const auto& b : d.blocks) html_block(b, os);
  os << "</body></html>\n";
  return os.str();
}

std::string render_html(const Report& r) { return render_html(report_document(r)); }

}  // namespace pha::analysis
